import { test } from 'node:test';
import assert from 'node:assert/strict';
import { XrunhuntError } from '../errors.js';
import {
  assertCacheVisibleInGuest,
  candidateVersion,
  debianKernelLayout,
  headersPackage,
  imagePackageFromDepends,
  isDebianKernelName,
  releaseOfImagePackage,
} from './debian-kernel.js';
import { INJECTOR_MODULE, injectorBuildCommand, injectorSourceHash } from './injector.js';
import { loadSoundModules } from './debian-modules.js';
import { qemuArgs, type BootPlan } from './qemu-command.js';

// Output of `apt-cache depends linux-image-rt-amd64` and `apt-cache policy` on bookworm, 2026-12-01.
const DEPENDS_RT = 'linux-image-rt-amd64\n  Depends: linux-image-6.1.0-57-rt-amd64\n';
const POLICY = [
  'linux-image-6.1.0-57-amd64:',
  '  Installed: (none)',
  '  Candidate: 6.1.192-3',
  '  Version table:',
  '     6.1.192-3 500',
].join('\n');

test('--kernel: only debian and debian-rt are reserved words; anything else is a path', () => {
  assert.ok(isDebianKernelName('debian'));
  assert.ok(isDebianKernelName('debian-rt'));
  assert.ok(!isDebianKernelName('./debian'));
  assert.ok(!isDebianKernelName('/boot/vmlinuz'));
});

test('the metapackage resolves to the versioned image, its release, headers and version', () => {
  const pkg = imagePackageFromDepends('linux-image-rt-amd64', DEPENDS_RT);
  assert.equal(pkg, 'linux-image-6.1.0-57-rt-amd64');
  assert.equal(releaseOfImagePackage(pkg), '6.1.0-57-rt-amd64');
  assert.equal(headersPackage('6.1.0-57-rt-amd64'), 'linux-headers-6.1.0-57-rt-amd64');
  assert.equal(candidateVersion('linux-image-6.1.0-57-amd64', POLICY), '6.1.192-3');
});

test('no image in apt-cache depends, or no candidate: an error naming the package and the command', () => {
  assert.throws(
    () => imagePackageFromDepends('linux-image-amd64', 'linux-image-amd64\n'),
    (e: unknown) =>
      e instanceof XrunhuntError &&
      e.message.includes('linux-image-amd64') &&
      (e.hint ?? '').includes('apt-get update'),
  );
  assert.throws(
    () => candidateVersion('linux-image-6.1.0-57-amd64', '  Candidate: (none)\n'),
    (e: unknown) => e instanceof XrunhuntError && e.message.includes('linux-image-6.1.0-57-amd64'),
  );
  assert.throws(() => releaseOfImagePackage('linux-image-amd64'), XrunhuntError);
});

test('the cache folder is per package and version; the files are where dpkg-deb -x puts them', () => {
  const l = debianKernelLayout('/c', 'linux-image-6.1.0-57-amd64', '6.1.192-3');
  assert.equal(l.dir, '/c/linux-image-6.1.0-57-amd64_6.1.192-3');
  assert.equal(
    l.bzImage,
    '/c/linux-image-6.1.0-57-amd64_6.1.192-3/root/boot/vmlinuz-6.1.0-57-amd64',
  );
  assert.notEqual(debianKernelLayout('/c', 'linux-image-6.1.0-57-amd64', '6.1.192-4').dir, l.dir);
  assert.equal(
    debianKernelLayout('/c', 'linux-image-6.1.0-57-amd64', '1:2/3').dir.split('/').length,
    3,
  );
});

test('a lab cache under a folder the guest covers with tmpfs is refused', () => {
  assert.throws(
    () => assertCacheVisibleInGuest('/tmp/cache', '/work/x'),
    (e: unknown) => e instanceof XrunhuntError && /XRUNHUNT_LAB_CACHE/.test(e.hint ?? ''),
  );
  assertCacheVisibleInGuest('/root/.cache/xrunhunt/lab', '/work/x');
  // A checkout in /tmp keeps /tmp visible (init.sh does not mount over it).
  assertCacheVisibleInGuest('/tmp/c/cache', '/tmp/c/checkout/');
});

test('injector: kbuild out-of-tree build against the release headers; the hash follows the sources', () => {
  const b = injectorBuildCommand('/usr/src/linux-headers-6.1.0-57-amd64', '/c/injector/build');
  assert.equal(b.cmd, 'make');
  assert.deepEqual(b.args, [
    '-C',
    '/usr/src/linux-headers-6.1.0-57-amd64',
    'M=/c/injector/build',
    '-j1',
    'modules',
  ]);
  assert.equal(b.module, `/c/injector/build/${INJECTOR_MODULE}.ko`);
  assert.notEqual(injectorSourceHash(['a', 'b']), injectorSourceHash(['ab', '']));
  assert.equal(injectorSourceHash(['x']), injectorSourceHash(['x']));
});

test('sound modules on a modular kernel: snd-dummy in hrtimer mode, a failure ends the script', () => {
  const lines = loadSoundModules(['dummy']);
  assert.equal(lines[0], '#!/bin/sh');
  assert.match(lines[1]!, /^modprobe snd-dummy hrtimer=1 \|\| \{ .*exit 1; \}$/);
  // Every card's drivers, each once, in card order.
  const hda = loadSoundModules(['hda', 'usb', 'hda']).map((l) => l.split(' ||')[0]);
  assert.deepEqual(hda.slice(1, -1), [
    'modprobe snd-hda-intel',
    'modprobe snd-hda-codec-generic',
    'modprobe xhci-pci',
    'modprobe snd-usb-audio',
  ]);
});

test('a Debian boot passes the initramfs and the module root; other boots are unchanged', () => {
  const plan: BootPlan = {
    accel: 'tcg',
    cpus: 2,
    memMiB: 1024,
    kernelImage: '/c/root/boot/vmlinuz-6.1.0-57-amd64',
    initPath: '/w/lab/guest/init.sh',
    preempt: 'voluntary',
    threadirqs: false,
    resultsDir: '/tmp/r',
    stdoutFile: '/tmp/o',
    stderrFile: '/tmp/e',
  };
  const plain = qemuArgs(plan);
  assert.ok(!plain.includes('-initrd'));
  const args = qemuArgs({
    ...plan,
    initrd: '/c/initramfs.cpio',
    extraKernelArgs: ['xrunhunt.modroot=/c/root'],
  });
  assert.equal(args[args.indexOf('-initrd') + 1], '/c/initramfs.cpio');
  const line = args[args.indexOf('-append') + 1]!.split(' ');
  // The initramfs reads init= from the command line and switch_roots into it.
  assert.ok(line.includes('init=/w/lab/guest/init.sh'));
  assert.ok(line.includes('xrunhunt.modroot=/c/root'));
});
