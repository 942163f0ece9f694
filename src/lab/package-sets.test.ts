// debian-packages.txt is the one list of Debian packages: these checks keep it and the code that
// installs or runs packages from drifting apart. The main job's own path (a session on a card;
// on a machine without one, Debian's kernel in the lab with the injector) is traced to the
// packages that ship what it runs, on this machine, with dpkg: that must be exactly the runtime
// and lab sets, so the main job installs nothing only the tests use, and misses nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './lab-paths.js';
import {
  DEBIAN_KERNEL_PACKAGES,
  LAB_PACKAGES,
  LAB_PIPEWIRE_PACKAGES,
  SOUND_DEBUG_BUILD_PACKAGES,
  packagesOfSet,
  parseDebianPackageList,
} from './packages.js';
import { injectorBuildCommand } from './injector.js';
import { STATIC_BUSYBOX } from './initramfs-build.js';

const list = parseDebianPackageList(readFileSync(join(repoRoot, 'debian-packages.txt'), 'utf8'));
const setOf = (name: string) => list.find((p) => p.name === name)?.set;

test('debian-packages.txt: every line names its set and who uses it; a bad line is refused with its number', () => {
  assert.ok(list.length > 20);
  assert.ok(
    list.every((p) => p.why.length > 10),
    'each package says what uses it',
  );
  assert.throws(
    () => parseDebianPackageList('# c\nruntime libasound2 session\ntools make builds\n'),
    /line 3: expected "SET PACKAGE WHAT-USES-IT" with SET one of runtime, lab, test, found "tools make builds"/,
  );
  assert.throws(
    () => parseDebianPackageList('runtime a x y\nlab a z w\n'),
    /line 2: a is listed twice/,
  );
  assert.throws(() => parseDebianPackageList('lab qemu-system-x86\n'), /line 1: expected/);
});

test('the sets add up: runtime ⊂ lab ⊂ test, and test is the whole list', () => {
  const runtime = packagesOfSet(list, 'runtime');
  const lab = packagesOfSet(list, 'lab');
  const all = packagesOfSet(list, 'test');
  assert.ok(runtime.every((p) => lab.includes(p)));
  assert.ok(lab.every((p) => all.includes(p)));
  assert.equal(all.length, list.length);
  assert.deepEqual(runtime, ['libasound2']);
});

test('every package the code installs or checks is listed, in a set that installs it where that code runs', () => {
  // The main job's lab path (lab build --kernel debian) installs these itself when missing.
  for (const p of DEBIAN_KERNEL_PACKAGES) assert.equal(setOf(p), 'lab', p);
  // Test-only paths: the xrun_debug modules' build, the self-built kernel, --pipewire.
  for (const p of [...SOUND_DEBUG_BUILD_PACKAGES, ...LAB_PACKAGES, ...LAB_PIPEWIRE_PACKAGES])
    assert.ok(setOf(p) !== undefined, `${p} is used by the code but not in debian-packages.txt`);
  for (const p of LAB_PIPEWIRE_PACKAGES) assert.equal(setOf(p), 'test', p);
  assert.equal(setOf('linux-source-6.1'), 'test', 'the kernel source is for the tests only');
  assert.equal(setOf('chromium'), 'test');
  assert.equal(setOf('postgresql'), 'test');
});

// The package that ships `path` (dpkg -S), trying the path as given and without /usr (merged-usr
// systems register /bin and /sbin paths); null when dpkg knows no owner.
function owner(path: string): string | null {
  for (const p of [path, path.replace(/^\/usr(?=\/s?bin\/)/, '')]) {
    try {
      const out = execFileSync('dpkg-query', ['-S', p], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      return out.split(':')[0]!.trim();
    } catch {
      // not this spelling
    }
  }
  return null;
}

const which = (cmd: string): string =>
  execFileSync('sh', ['-c', `readlink -f "$(command -v ${cmd})"`], { encoding: 'utf8' }).trim();

const priority = (pkg: string): string =>
  execFileSync('dpkg-query', ['-W', '-f=${Priority}', pkg], { encoding: 'utf8' }).trim();

let dpkgUsable = false;
try {
  dpkgUsable = owner(which('qemu-system-x86_64')) !== null;
} catch {
  dpkgUsable = false;
}

test(
  "the main job's path runs exactly what the runtime and lab sets install (beside what every Debian system has)",
  {
    skip: dpkgUsable ? false : 'needs dpkg and qemu-system-x86 installed (a Debian test machine)',
  },
  () => {
    // What the main job runs on the host, and where: koffi.load (src/alsa/libasound.ts), the
    // guest's QEMU (src/lab/run-guest.ts), the initramfs's busybox (src/lab/initramfs-build.ts),
    // depmod over Debian's unpacked modules (src/lab/debian-fetch.ts), mkfs.ext4 for the
    // scratch disk (src/lab/run-guest.ts), and the injector's build (src/lab/injector.ts).
    const files = [
      execFileSync('sh', ['-c', 'readlink -f /usr/lib/*-linux-gnu/libasound.so.2 | head -n1'], {
        encoding: 'utf8',
      }).trim(),
      which('qemu-system-x86_64'),
      STATIC_BUSYBOX,
      which('depmod'),
      which('mkfs.ext4'),
      which(injectorBuildCommand('/h', '/b').cmd),
    ];
    const owners = new Map(files.map((f) => [f, owner(f)]));
    for (const [f, o] of owners) assert.ok(o !== null, `no package ships ${f}`);
    const used = new Set(
      [...owners.values()]
        .map((o) => o!.replace(/:.*$/, ''))
        .filter((o) => priority(o) !== 'required'),
    );
    const installed = new Set(packagesOfSet(list, 'lab'));
    assert.deepEqual(
      [...used].filter((p) => !installed.has(p)),
      [],
      'used on the main path, missing from the runtime/lab sets',
    );
    assert.deepEqual(
      [...installed].filter((p) => !used.has(p) && priority(p) !== 'required'),
      [],
      'in the runtime/lab sets, unused on the main path (move them to test)',
    );
  },
);
