// The guest lines for the backports tree, run for real with /bin/sh against a tree folder made
// here (the real tree's layout: usr/share/pipewire, usr/share/wireplumber), not a mock of sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import { renderPipewireSetup, pipewireClientEnv } from './guest-pipewire.js';
import {
  WIREPLUMBER_05_DROPIN,
  renderTreeConfig,
  treeConfigDirs,
  treeEnvWords,
} from './pipewire-build-guest.js';

const TREE = {
  root: '/c/pw/root',
  pipewireVersion: '1.4.2-1~bpo12+1',
  wireplumberVersion: '0.5.8',
};

test('the config lines copy the tree configs to tmpfs and add both drop-ins', () => {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-pwtree-'));
  try {
    const root = join(base, 'root');
    mkdirSync(join(root, 'usr/share/pipewire'), { recursive: true });
    mkdirSync(join(root, 'usr/share/wireplumber/wireplumber.conf.d'), { recursive: true });
    writeFileSync(join(root, 'usr/share/pipewire/pipewire.conf'), 'context.properties = {}\n');
    writeFileSync(join(root, 'usr/share/pipewire/client.conf'), '\n');
    writeFileSync(
      join(root, 'usr/share/wireplumber/wireplumber.conf'),
      'wireplumber.profiles = {}\n',
    );
    writeFileSync(join(root, 'usr/share/wireplumber/wireplumber.conf.d/alsa-vm.conf'), '\n');
    const dropIn = join(base, '50-xrunhunt-lab.conf');
    writeFileSync(dropIn, 'context.objects = []\n');
    const dir = join(base, 'run');
    const script = renderTreeConfig({ ...TREE, root }, dir, dropIn).join('\n');
    execFileSync('/bin/sh', ['-eu', '-c', script]);
    const cfg = treeConfigDirs(dir);
    assert.ok(existsSync(join(cfg.pipewire, 'pipewire.conf')));
    assert.ok(existsSync(join(cfg.pipewire, 'client.conf')));
    assert.equal(
      readFileSync(join(cfg.pipewire, 'pipewire.conf.d/50-xrunhunt-lab.conf'), 'utf8'),
      'context.objects = []\n',
    );
    assert.ok(existsSync(join(cfg.wireplumber, 'wireplumber.conf.d/alsa-vm.conf')));
    assert.equal(
      readFileSync(join(cfg.wireplumber, 'wireplumber.conf.d/51-xrunhunt-lab.conf'), 'utf8'),
      WIREPLUMBER_05_DROPIN,
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('WirePlumber 0.5 drop-in turns off what needs udev, BlueZ, cameras, D-Bus and logind', () => {
  for (const f of [
    'hardware.audio',
    'hardware.bluetooth',
    'hardware.video-capture',
    'support.dbus',
    'support.logind',
  ])
    assert.match(
      WIREPLUMBER_05_DROPIN,
      new RegExp(`^    ${f.replace('.', '\\.')} = disabled$`, 'm'),
    );
});

test('server, session manager and clients all get the tree environment', () => {
  const words = treeEnvWords(TREE, '/run/xrunhunt-pipewire');
  assert.match(words, /^PATH=\/c\/pw\/root\/usr\/bin:/);
  assert.match(words, / PIPEWIRE_CONFIG_DIR=\/run\/xrunhunt-pipewire\/tree-config\/pipewire /);
  assert.match(
    words,
    / WIREPLUMBER_CONFIG_DIR=\/run\/xrunhunt-pipewire\/tree-config\/wireplumber$/,
  );
  const opts = { mode: 'irq' as const, device: 'hw:CARD=Intel,DEV=0', tree: TREE };
  const setup = renderPipewireSetup(opts).join('\n');
  assert.ok(setup.includes(`HOME=$pwdir ${words}"`), 'pw_env carries the tree');
  assert.match(setup, /env \$pw_env pipewire --version/);
  assert.ok(setup.includes('tree-config/pipewire/pipewire.conf.d/'));
  assert.equal(pipewireClientEnv(opts)['LD_LIBRARY_PATH'], '/c/pw/root/usr/lib/x86_64-linux-gnu');
  // Without a tree nothing changes for the host's PipeWire.
  const host = renderPipewireSetup({ mode: 'timer', device: 'hw:0' }).join('\n');
  assert.doesNotMatch(host, /tree-config|LD_LIBRARY_PATH/);
  assert.deepEqual(Object.keys(pipewireClientEnv({ mode: 'timer', device: 'hw:0' })), [
    'XDG_RUNTIME_DIR',
  ]);
});

test('a tree path the unquoted env list cannot carry is refused with the fix', () => {
  assert.throws(
    () => treeEnvWords({ ...TREE, root: '/home/a b/cache' }, '/run/x'),
    (e: unknown) => e instanceof XrunhuntError && /XRUNHUNT_LAB_CACHE/.test(e.hint ?? ''),
  );
});
