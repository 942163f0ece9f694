// The main job's choice of what to install (scripts/main.sh --no-install), tried without
// installing anything: a machine with a sound card (a copied /proc/asound/cards) or a --device
// needs only the runtime set, no QEMU; a machine without one needs the lab set; a user who is
// not root gets the plan without being asked for sudo; missing packages are listed with what
// uses each and the exact apt-get line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-main-job-'));
chmodSync(dir, 0o755);
const cardsOne = join(dir, 'cards-one');
writeFileSync(
  cardsOne,
  ' 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n                      HDA Intel PCH at 0xf7f10000 irq 30\n',
);
const cardsNone = join(dir, 'cards-none');
writeFileSync(cardsNone, '--- no soundcards ---\n');
// A list whose lab set holds a package no machine has: what a fresh machine would be told.
const list = join(dir, 'packages.txt');
writeFileSync(
  list,
  [
    '# test list',
    'runtime  libasound2                 session through koffi',
    'lab      xrunhunt-no-such-package   the lab VM (stands in for qemu-system-x86)',
    'test     xrunhunt-test-only-package the tests only',
    '',
  ].join('\n'),
);
chmodSync(list, 0o644);
// nobody may not read the checkout (a clone under /root): it runs a world-readable copy.
const copied = join(dir, 'scripts');
mkdirSync(copied, { mode: 0o755 });
for (const f of ['main.sh', 'install-deps.sh', 'as-root.sh']) {
  copyFileSync(join(root, 'scripts', f), join(copied, f));
  chmodSync(join(copied, f), 0o644);
}
test.after(() => rmSync(dir, { recursive: true, force: true }));

const isRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;

function mainJob(args: string[], env: Record<string, string>, asNobody = false) {
  const argv = ['bash', join(asNobody ? dir : root, 'scripts/main.sh'), '--no-install', ...args];
  const cmd = asNobody
    ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', ...argv]
    : argv;
  const r = spawnSync(cmd[0]!, cmd.slice(1), {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    timeout: 30_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

test('with a sound card the main job plans the runtime set only: no QEMU, nothing from the tests', () => {
  const r = mainJob([], { XRUNHUNT_ASOUND_CARDS: cardsOne, XRUNHUNT_PACKAGE_LIST: list });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /sound card found in .*cards-one: the session runs on it \(no QEMU needed\)/);
  assert.match(r.out, /the runtime set/);
  assert.doesNotMatch(r.out, /xrunhunt-no-such-package|xrunhunt-test-only-package/);
});

test('without a sound card it plans the lab set, lists each missing package with what uses it and the apt-get line, and installs nothing', () => {
  const r = mainJob([], { XRUNHUNT_ASOUND_CARDS: cardsNone, XRUNHUNT_PACKAGE_LIST: list });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /no sound card in .*cards-none: the session runs in the lab VM/);
  assert.match(r.out, /the lab set needs 1 Debian package\(s\) not installed here:/);
  assert.match(r.out, /xrunhunt-no-such-package +the lab VM \(stands in for qemu-system-x86\)/);
  assert.match(r.out, /apt-get install --no-install-recommends xrunhunt-no-such-package\n/);
  assert.doesNotMatch(r.out, /xrunhunt-test-only-package/, 'nothing only the tests use');
  assert.doesNotMatch(r.out, /Reading package lists|Setting up/, 'apt was not run');
});

test('a --device given means this machine, even without a card in /proc/asound', () => {
  const r = mainJob(['--device', 'hw:1,0', '--phases', 'idle:5s'], {
    XRUNHUNT_ASOUND_CARDS: cardsNone,
    XRUNHUNT_PACKAGE_LIST: list,
  });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /a device was given: the session runs on this machine/);
  assert.doesNotMatch(r.out, /xrunhunt-no-such-package/);
});

test(
  'not root: the plan is printed without asking for sudo',
  { skip: isRoot && hasSetpriv ? false : 'needs root and setpriv to run as nobody' },
  () => {
    const r = mainJob([], { XRUNHUNT_ASOUND_CARDS: cardsNone, XRUNHUNT_PACKAGE_LIST: list }, true);
    assert.equal(r.code, 0, r.out);
    assert.doesNotMatch(r.out, /asking sudo|needs root/);
    assert.match(r.out, /apt-get install --no-install-recommends xrunhunt-no-such-package/);
  },
);

test('install-deps refuses an unknown set or argument with what it expected', () => {
  const bad = spawnSync('bash', [join(root, 'scripts/install-deps.sh'), '--set', 'desktop'], {
    encoding: 'utf8',
  });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--set must be runtime, lab or test, found "desktop"/);
  const odd = spawnSync('bash', [join(root, 'scripts/install-deps.sh'), '--quiet'], {
    encoding: 'utf8',
  });
  assert.equal(odd.status, 1);
  assert.match(
    odd.stderr,
    /unknown argument "--quiet" \(expected --set runtime\|lab\|test, --no-install\)/,
  );
});
