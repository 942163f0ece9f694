// IRQ mode needs a PipeWire ALSA plugin that reads api.alsa.disable-tsched; an older one would
// silently run timer mode on every card (0.3.65 never polls a PCM). Checked on bytes and on this
// host's real plugin.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SPA_ALSA_PLUGIN_PATHS,
  assertIrqModeSupported,
  pluginFacts,
  pluginKnowsDisableTsched,
} from './guest-pipewire-support.js';
import { XrunhuntError } from '../errors.js';

const tmp = mkdtempSync(join(tmpdir(), 'xrunhunt-pwsupport-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('a plugin naming the property supports IRQ mode, one without it is refused by name', () => {
  assert.equal(pluginKnowsDisableTsched(Buffer.from('\0api.alsa.disable-tsched\0')), true);
  assert.equal(pluginKnowsDisableTsched(Buffer.from('\0api.alsa.disable-batch\0')), false);
  const newer = join(tmp, 'newer.so');
  const older = join(tmp, 'older.so');
  writeFileSync(newer, Buffer.from('\x7fELF…api.alsa.disable-tsched…'));
  writeFileSync(older, Buffer.from('\x7fELF…api.alsa.disable-batch…'));
  assert.equal(assertIrqModeSupported(['usb'], [join(tmp, 'absent.so'), newer]), newer);
  assert.throws(
    () => assertIrqModeSupported(['dummy'], [older]),
    (e: unknown) =>
      e instanceof XrunhuntError &&
      e.message.includes(older) &&
      /reads api\.alsa\.disable-tsched/.test(e.message) &&
      /never polls a PCM/.test(e.message) &&
      /a BATCH card \(--card usb\) does not change that/.test(e.message) &&
      /no --card gives IRQ mode/.test(e.message),
  );
  assert.throws(
    () => assertIrqModeSupported(['usb'], [older]),
    (e: unknown) =>
      e instanceof XrunhuntError &&
      /on --card usb \(a BATCH device\) it keeps the period interrupts on/.test(e.message),
  );
  assert.throws(
    () => assertIrqModeSupported(['dummy'], [join(tmp, 'absent.so')]),
    (e: unknown) => e instanceof XrunhuntError && /not installed/.test(e.message),
  );
});

test('the poll symbol is found as a whole dynamic-symbol name, not as a prefix', () => {
  assert.equal(pluginFacts(Buffer.from('\0snd_pcm_poll_descriptors\0')).pollsPcm, true);
  assert.equal(pluginFacts(Buffer.from('\0snd_pcm_poll_descriptors_count\0')).pollsPcm, false);
  assert.equal(pluginFacts(Buffer.from('\0snd_seq_poll_descriptors\0')).pollsPcm, false);
});

const installed = SPA_ALSA_PLUGIN_PATHS.find((p) => existsSync(p));

test(
  "the verdict on this host's plugin agrees with grep",
  { skip: installed ? false : 'PipeWire is not installed on this host' },
  () => {
    let grep = false;
    try {
      execFileSync('grep', ['-q', '-a', 'api.alsa.disable-tsched', installed!]);
      grep = true;
    } catch {
      grep = false;
    }
    let ok = true;
    try {
      assertIrqModeSupported(['usb'], [installed!]);
    } catch {
      ok = false;
    }
    assert.equal(ok, grep);
  },
);
