import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  configEnabled,
  missingXrunDebugOptions,
  parseKernelConfig,
  readKernelConfig,
} from './kernel-config.js';
import { explainXrunDebugAbsence } from './xrun-debug-absence.js';
import { createFakeSystem, kernelConfigText } from '../../test/helpers/fake-proc.js';

test('kernel config: values, "is not set", strings; the missing xrun_debug options', () => {
  const c = parseKernelConfig(
    '# comment\nCONFIG_SND=m\n# CONFIG_SND_DEBUG is not set\nCONFIG_HZ=250\nCONFIG_LOCALVERSION="-lab"\nCONFIG_SND_VERBOSE_PROCFS=y\n',
  );
  assert.equal(c.get('SND'), 'm');
  assert.equal(c.get('SND_DEBUG'), null);
  assert.equal(c.get('HZ'), '250');
  assert.equal(c.get('LOCALVERSION'), '-lab');
  assert.equal(configEnabled(c, 'SND'), true);
  assert.deepEqual(missingXrunDebugOptions(c), ['CONFIG_SND_DEBUG', 'CONFIG_SND_PCM_XRUN_DEBUG']);
});

test('config sources: /proc/config.gz first, then /boot/config-<release>; both tried when absent', (t) => {
  const fake = createFakeSystem({
    configGz: kernelConfigText({ xrunDebug: true }),
    boot: { 'config-6.1.0': kernelConfigText({ xrunDebug: false }) },
  });
  t.after(() => fake.cleanup());
  const a = readKernelConfig({
    procRoot: fake.procRoot,
    bootRoot: fake.bootRoot,
    release: '6.1.0',
  });
  assert.equal(a.source, `${fake.procRoot}/config.gz`);
  assert.deepEqual(missingXrunDebugOptions(a.config!), []);
  const b = readKernelConfig({
    procRoot: fake.bootRoot,
    bootRoot: fake.bootRoot,
    release: '6.1.0',
  });
  assert.equal(b.source, `${fake.bootRoot}/config-6.1.0`);
  assert.equal(b.tried[0]!.error, 'ENOENT');
  const none = readKernelConfig({
    procRoot: fake.bootRoot,
    bootRoot: fake.bootRoot,
    release: '9.9',
  });
  assert.equal(none.config, undefined);
  assert.equal(none.tried.length, 2);
});

test('absence reasons: no asound, no cards, no PCMs, kernel options, unknown config', () => {
  const base = {
    procRoot: '/proc',
    asoundPresent: true,
    cardCount: 1,
    streamCount: 2,
    kernelRelease: '6.1.0-57-amd64',
    config: undefined,
    configSource: undefined,
    configTried: [{ path: '/boot/config-6.1.0-57-amd64', error: 'ENOENT' }],
  };
  assert.equal(
    explainXrunDebugAbsence({ ...base, asoundPresent: false }).reason,
    'no-sound-support',
  );
  assert.equal(explainXrunDebugAbsence({ ...base, cardCount: 0 }).reason, 'no-cards');
  assert.equal(explainXrunDebugAbsence({ ...base, streamCount: 0 }).reason, 'no-pcms');
  const unknown = explainXrunDebugAbsence(base);
  assert.equal(unknown.reason, 'config-unknown');
  assert.match(unknown.message, /tried \/boot\/config-6\.1\.0-57-amd64: ENOENT/);
  const cfg = parseKernelConfig(kernelConfigText({ xrunDebug: false }));
  const opts = explainXrunDebugAbsence({
    ...base,
    config: cfg,
    configSource: '/boot/config-6.1.0-57-amd64',
  });
  assert.equal(opts.reason, 'kernel-options');
  assert.deepEqual(opts.missingOptions, ['CONFIG_SND_DEBUG', 'CONFIG_SND_PCM_XRUN_DEBUG']);
  const noSnd = explainXrunDebugAbsence({
    ...base,
    asoundPresent: false,
    config: parseKernelConfig('CONFIG_HZ=100\n'),
    configSource: 'x',
  });
  assert.match(noSnd.message, /built without sound support \(CONFIG_SND is not set/);
  assert.deepEqual(noSnd.missingOptions, [
    'CONFIG_SND',
    'CONFIG_SND_DEBUG',
    'CONFIG_SND_VERBOSE_PROCFS',
    'CONFIG_SND_PCM_XRUN_DEBUG',
  ]);
});
