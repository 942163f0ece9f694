// `xrunhunt lab` input handling through the real CLI: clear errors, nothing lost, no VM needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const emptyCache = () => mkdtempSync(join(tmpdir(), 'xrunhunt-lab-cache-'));

test('lab run --profile without a built kernel names the profile and says how to build it', async () => {
  const cache = emptyCache();
  try {
    const r = await runCli(['lab', 'run', '--profile', 'debug', '--', 'doctor'], {
      env: { XRUNHUNT_LAB_CACHE: cache },
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no lab kernel is built for profile "debug"/);
    assert.match(r.stderr, /xrunhunt lab build --profile debug/);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test("lab run --out a folder holding files: claimed like a session's (a note, a subfolder), and a refused run leaves the folder as it was", async () => {
  const cache = emptyCache();
  const mine = join(cache, 'mine');
  mkdirSync(mine);
  writeFileSync(join(mine, 'o'), 'my notes\n');
  try {
    const r = await runCli(['lab', 'run', '--profile', 'debug', '--out', mine, '--', 'doctor'], {
      env: { XRUNHUNT_LAB_CACHE: cache },
    });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /already holds files, which are left as they are; this run writes to .*xrunhunt-lab-/,
    );
    assert.match(r.stderr, /no lab kernel is built for profile "debug"/);
    assert.deepEqual(readdirSync(mine), ['o'], 'the refused run took its empty subfolder back');
    assert.equal(readFileSync(join(mine, 'o'), 'utf8'), 'my notes\n');
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test('a bad --inject is a usage error that shows the accepted form', async () => {
  const r = await runCli(['lab', 'run', '--inject', 'lockup:ten', '--', 'doctor']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--inject lockup section must be a number of milliseconds/);
  assert.match(r.stderr, /lockup:<ms>\[:irq\|:preempt\|:softirq\]/);
});

test('--inject-paused without --inject is a usage error that says what to add', async () => {
  const r = await runCli(['lab', 'exec', '--inject-paused', '--', 'true']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--inject-paused pauses the --inject offender, and --inject is not given/);
  assert.match(r.stderr, /add --inject lockup:10:irq/);
});

test('lab exec without a command, and bad --preempt / --accel, are usage errors', async () => {
  const noCmd = await runCli(['lab', 'exec']);
  assert.equal(noCmd.code, 1);
  assert.match(noCmd.stderr, /lab exec needs a command/);
  const preempt = await runCli(['lab', 'exec', '--preempt', 'rt', '--', 'true']);
  assert.equal(preempt.code, 1);
  assert.match(preempt.stderr, /invalid --preempt "rt": expected one of none, voluntary, full/);
  const accel = await runCli(['lab', 'exec', '--accel', 'xen', '--', 'true']);
  assert.equal(accel.code, 1);
  assert.match(accel.stderr, /invalid --accel "xen": expected one of auto, kvm, tcg/);
});

test('an unknown profile lists the known ones', async () => {
  const cache = emptyCache();
  try {
    const r = await runCli(['lab', 'build', '--profile', 'nosuch'], {
      env: { XRUNHUNT_LAB_CACHE: cache },
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no kernel config fragment for profile "nosuch"/);
    assert.match(r.stderr, /known profiles: .*debug/);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test('lab status --json on an empty cache: no builds, the cache path, an accelerator verdict', async () => {
  const cache = emptyCache();
  try {
    const r = await runCli(['lab', 'status', '--json'], { env: { XRUNHUNT_LAB_CACHE: cache } });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as { cacheRoot: string; builds: unknown[]; accel: string };
    assert.equal(s.cacheRoot, cache);
    assert.deepEqual(s.builds, []);
    assert.match(s.accel, /TCG|KVM|not probed/);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});
