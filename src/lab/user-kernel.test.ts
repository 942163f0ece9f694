import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkUserKernel, configCandidates } from './user-kernel.js';
import { XrunhuntError } from '../errors.js';

const fragment =
  'CONFIG_9P_FS=y\nCONFIG_SND_DUMMY=y\nCONFIG_SND_PCM_XRUN_DEBUG=y\nCONFIG_IKCONFIG=y\n';

test('a build tree image finds the tree .config', () => {
  assert.ok(configCandidates('/src/linux/arch/x86/boot/bzImage').includes('/src/linux/.config'));
  // A distribution's /boot: config-RELEASE beside vmlinuz-RELEASE, read first.
  assert.equal(
    configCandidates('/x/boot/vmlinuz-6.1.0-57-amd64')[0],
    '/x/boot/config-6.1.0-57-amd64',
  );
});

test('names the missing options and separates the ones the lab cannot work without', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-userkernel-'));
  try {
    mkdirSync(join(dir, 'boot'));
    const image = join(dir, 'boot', 'bzImage');
    writeFileSync(image, 'not really a kernel');
    writeFileSync(
      join(dir, 'boot', 'config'),
      'CONFIG_9P_FS=y\nCONFIG_SND_DUMMY=m\n# CONFIG_IKCONFIG is not set\n',
    );
    const c = await checkUserKernel(image, fragment, []);
    assert.equal(c.configSource, join(dir, 'boot', 'config'));
    assert.deepEqual(
      c.mismatches.map((m) => m.name),
      ['CONFIG_SND_DUMMY', 'CONFIG_SND_PCM_XRUN_DEBUG', 'CONFIG_IKCONFIG'],
    );
    assert.deepEqual(
      c.essentialMissing.map((m) => m.name),
      ['CONFIG_SND_DUMMY', 'CONFIG_SND_PCM_XRUN_DEBUG'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no config anywhere is reported, not guessed; a missing image is an error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-userkernel-'));
  try {
    const image = join(dir, 'vmlinuz');
    writeFileSync(image, 'x');
    const c = await checkUserKernel(image, fragment, []);
    assert.equal(c.configSource, null);
    await assert.rejects(checkUserKernel(join(dir, 'nope'), fragment, []), XrunhuntError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
