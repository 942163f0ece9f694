import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import {
  INITRAMFS_LOAD_LIST,
  INITRAMFS_MODULES,
  encodeCpioNewc,
  initramfsEntries,
  moduleLoadOrder,
  moduleName,
  parseModulesDep,
} from './initramfs.js';

// A real modules.dep sample (depmod over Debian's linux-image-6.1.0-57-amd64, see the file's header).
const sample = readFileSync(
  new URL('../../test/fixtures/debian-kernel/modules.dep', import.meta.url),
  'utf8',
);

test('modules.dep: the 9p root and its virtio transport load after their dependencies, each once', () => {
  const dep = parseModulesDep(sample);
  const order = moduleLoadOrder(dep, INITRAMFS_MODULES);
  const at = (p: string) => {
    const i = order.indexOf(p);
    assert.ok(i >= 0, `${p} in ${order.join(' ')}`);
    return i;
  };
  // Every module's dependencies come before it.
  for (const p of order)
    for (const d of dep.get(p) ?? []) assert.ok(at(d) < at(p), `${d} before ${p}`);
  assert.equal(new Set(order).size, order.length);
  assert.ok(at('kernel/fs/netfs/netfs.ko') < at('kernel/fs/9p/9p.ko'));
  assert.ok(at('kernel/net/9p/9pnet.ko') < at('kernel/net/9p/9pnet_virtio.ko'));
  assert.ok(at('kernel/drivers/virtio/virtio_ring.ko') < at('kernel/drivers/virtio/virtio_pci.ko'));
  assert.ok(at('kernel/fs/jbd2/jbd2.ko') < at('kernel/fs/ext4/ext4.ko'));
  // Nothing the root does not need (the sound modules come later, through modprobe).
  assert.ok(!order.some((p) => p.includes('/sound/')), order.join(' '));
  assert.equal(order.length, 17, order.join(' '));
});

test('module names compare like modprobe: dashes are underscores, suffixes dropped', () => {
  assert.equal(moduleName('kernel/sound/drivers/snd-dummy.ko'), 'snd_dummy');
  assert.equal(moduleName('kernel/x/virtio_pci.ko.xz'), 'virtio_pci');
  const order = moduleLoadOrder(parseModulesDep(sample), ['snd_dummy']);
  assert.equal(order.at(-1), 'kernel/sound/drivers/snd-dummy.ko');
  assert.ok(order.includes('kernel/sound/core/snd-pcm.ko'));
});

test('a wanted module that is built in is skipped; one that is missing is an error naming it', () => {
  const dep = parseModulesDep(sample);
  assert.deepEqual(moduleLoadOrder(dep, ['8250'], ['kernel/drivers/tty/serial/8250/8250.ko']), []);
  assert.throws(
    () => moduleLoadOrder(dep, ['9p', 'virtiofs'], [], '6.1.0-57-amd64'),
    (e: unknown) =>
      e instanceof XrunhuntError &&
      /module virtiofs is neither in modules.dep nor built into 6\.1\.0-57-amd64/.test(e.message),
  );
});

test('the file list: folders first, /init, busybox applets, the load list in order, the modules', () => {
  const entries = initramfsEntries({
    release: '6.1.0-57-amd64',
    busybox: new Uint8Array([1, 2, 3]),
    initScript: '#!/bin/sh\n',
    modules: [
      { path: 'kernel/net/9p/9pnet.ko', data: new Uint8Array([9]) },
      { path: 'kernel/fs/9p/9p.ko', data: new Uint8Array([8]) },
    ],
  });
  const paths = entries.map((e) => e.path);
  const idx = (p: string) => paths.indexOf(p);
  assert.ok(
    idx('lib/modules/6.1.0-57-amd64/kernel/net/9p') <
      idx('lib/modules/6.1.0-57-amd64/kernel/net/9p/9pnet.ko'),
  );
  assert.ok(idx('lib') < idx('lib/modules'));
  for (const p of [
    'init',
    'bin/busybox',
    'bin/switch_root',
    'bin/insmod',
    'dev/console',
    'newroot',
  ])
    assert.ok(idx(p) >= 0, p);
  const list = entries.find((e) => e.path === INITRAMFS_LOAD_LIST);
  assert.ok(list && list.kind === 'file');
  assert.equal(new TextDecoder().decode(list.data), 'kernel/net/9p/9pnet.ko\nkernel/fs/9p/9p.ko\n');
});

test('cpio newc: GNU cpio reads back the names, modes, symlinks, device node and contents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-cpio-'));
  try {
    const archive = encodeCpioNewc(
      initramfsEntries({
        release: 'r',
        busybox: new TextEncoder().encode('odd-length'),
        initScript: '#!/bin/sh\necho hi\n',
        modules: [{ path: 'kernel/a/b.ko', data: new Uint8Array([0, 1, 2, 3, 4]) }],
      }),
    );
    assert.equal(archive.length % 4, 0);
    writeFileSync(join(dir, 'a.cpio'), archive);
    const listing = execFileSync('cpio', ['-itv', '-F', join(dir, 'a.cpio')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    assert.match(listing, /^crw------- .* 5, +1 .* dev\/console$/m);
    assert.match(listing, /^lrwxrwxrwx .* bin\/sh -> busybox$/m);
    execFileSync('cpio', ['-idm', '--no-absolute-filenames', '-F', join(dir, 'a.cpio')], {
      cwd: dir,
      stdio: 'ignore',
    });
    assert.equal(readFileSync(join(dir, 'init'), 'utf8'), '#!/bin/sh\necho hi\n');
    assert.equal(statSync(join(dir, 'init')).mode & 0o777, 0o755);
    assert.equal(readFileSync(join(dir, 'bin/busybox'), 'utf8'), 'odd-length');
    assert.equal(readlinkSync(join(dir, 'bin/insmod')), 'busybox');
    assert.deepEqual([...readFileSync(join(dir, 'lib/modules/r/kernel/a/b.ko'))], [0, 1, 2, 3, 4]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
