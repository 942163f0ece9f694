import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SOUND_DEBUG_OPTIONS,
  enableInAutoconf,
  enableInKconfig,
  skippedOptionOverrides,
  soundDebugCacheKey,
  soundDebugModulesScript,
  sourceVersionMismatch,
} from './sound-debug-recipe.js';

test('enableInKconfig turns unset, =m and absent options into =y, once each, and keeps the rest', () => {
  const text = [
    '# CONFIG_SND_DEBUG is not set',
    'CONFIG_SND_PCM_XRUN_DEBUG=m',
    'CONFIG_SND_DUMMY=m',
    'CONFIG_SND_DEBUG_VERBOSE=n',
    '',
  ].join('\n');
  const out = enableInKconfig(text, SOUND_DEBUG_OPTIONS).split('\n');
  for (const o of SOUND_DEBUG_OPTIONS) {
    assert.equal(out.filter((l) => l.startsWith(`CONFIG_${o}=`)).length, 1, o);
    assert.ok(out.includes(`CONFIG_${o}=y`), o);
  }
  assert.ok(!out.includes('# CONFIG_SND_DEBUG is not set'));
  // A longer option with the same prefix is someone else's: untouched.
  assert.ok(out.includes('CONFIG_SND_DEBUG_VERBOSE=n'));
  assert.ok(out.includes('CONFIG_SND_DUMMY=m'));
});

test('enableInAutoconf replaces built-in and module defines with one built-in define each', () => {
  const text = [
    '#define CONFIG_SND_PCM_XRUN_DEBUG_MODULE 1',
    '#define CONFIG_SND_DEBUG_VERBOSE 1',
    '#define CONFIG_SND_VERBOSE_PROCFS 1',
  ].join('\n');
  const out = enableInAutoconf(text, SOUND_DEBUG_OPTIONS).split('\n');
  assert.ok(!out.includes('#define CONFIG_SND_PCM_XRUN_DEBUG_MODULE 1'));
  assert.ok(out.includes('#define CONFIG_SND_DEBUG_VERBOSE 1'));
  for (const o of SOUND_DEBUG_OPTIONS)
    assert.equal(out.filter((l) => l === `#define CONFIG_${o} 1`).length, 1, o);
});

test('the guest loads snd-dummy (hrtimer) and snd-aloop first, as the debug kernel numbers its cards', () => {
  const lines = soundDebugModulesScript(['hda', 'dummy', 'usb']);
  const loads = lines.filter((l) => l.startsWith('modprobe')).map((l) => l.split(' ||')[0]);
  assert.deepEqual(loads, [
    'modprobe snd-dummy hrtimer=1',
    'modprobe snd-aloop',
    'modprobe snd-hda-intel',
    'modprobe snd-hda-codec-generic',
    'modprobe xhci-pci',
    'modprobe snd-usb-audio',
  ]);
  assert.equal(lines[0], '#!/bin/sh');
  assert.match(
    lines[1]!,
    /\|\| \{ echo "xrunhunt-lab: modprobe snd-dummy hrtimer=1 failed" >&2; exit 1; \}/,
  );
});

test('the cache key changes with every input and is stable for the same ones', () => {
  const base = {
    imagePackage: 'linux-image-6.1.0-57-amd64',
    imageVersion: '6.1.192-3',
    sourceVersion: '6.1.192-3',
    sourceId: 'linux-source-6.1.tar.xz:1:2',
    headersVersion: '6.1.192-3',
  };
  const k = soundDebugCacheKey(base);
  assert.match(k, /^sound-debug-[0-9a-f]{16}$/);
  assert.equal(soundDebugCacheKey({ ...base }), k);
  for (const field of Object.keys(base) as (keyof typeof base)[])
    assert.notEqual(soundDebugCacheKey({ ...base, [field]: `${base[field]}x` }), k, field);
});

test('make overrides switch drivers off without touching the options the lab needs', () => {
  const o = skippedOptionOverrides();
  assert.ok(o.every((x) => /^CONFIG_[A-Z0-9_]+=$/.test(x)));
  for (const needed of [
    'SND_DUMMY',
    'SND_ALOOP',
    'SND_HDA_INTEL',
    'SND_HDA_GENERIC',
    'SND_USB_AUDIO',
    'SND_INTEL8X0',
  ])
    assert.ok(!o.includes(`CONFIG_${needed}=`), needed);
});

test('a source or headers version other than the image is named, with what was found', () => {
  assert.equal(sourceVersionMismatch('6.1.192-3', '6.1.192-3', '6.1.192-3'), null);
  assert.equal(
    sourceVersionMismatch('6.1.192-3', '6.1.190-1', '6.1.192-3'),
    'the image is 6.1.192-3, but linux-source-6.1 6.1.190-1',
  );
  assert.equal(
    sourceVersionMismatch('6.1.192-3', null, null),
    'the image is 6.1.192-3, but linux-source-6.1 not installed and the headers not installed',
  );
});
