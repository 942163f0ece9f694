// `try` through real time on the JACK dummy server: every A and every B session plays the
// same injected stalls (30 ms against a 10.7 ms buffer: each one an underrun, platform facts),
// so both arms count them and the comparison must not call a knob that changed nothing
// about the stalls significant. Asserted: each session saw at least its 3 injected xruns, the
// arms were alternated, and the knob was put back.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { ensureJack, jackMissingReason, type JackServer } from '../helpers/jack.js';
import { createTryKnobTree } from '../helpers/try-knob-tree.js';

const skip = jackMissingReason() ?? false;
let jack: JackServer | null = null;
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-try-jack-'));
const env = { XDG_STATE_HOME: join(work, 'state') };
const tree = createTryKnobTree();

before(async () => {
  if (!skip) jack = await ensureJack();
});
after(async () => {
  await jack?.stop();
  tree.cleanup();
  rmSync(work, { recursive: true, force: true });
});

test('injected stalls are counted in both arms; swappiness is restored', { skip }, async () => {
  const r = await runCli(
    [
      'try',
      'vm.swappiness=10',
      '--device',
      'plug:jack',
      '--period',
      '256',
      '--periods',
      '2',
      '--phases',
      'idle:4s',
      '--inject-stall',
      '30x3',
      '--rounds',
      '2',
      '--capture',
      'none',
      '--proc-root',
      tree.procRoot,
      '--sys-root',
      tree.sysRoot,
      '--json',
    ],
    { env, timeoutMs: 120_000 },
  );
  assert.ok(r.stdout.trim().startsWith('{'), `JSON on stdout; stderr: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as {
    sessions: { arm: string; phases: { xruns: number }[] }[];
    total: { a: { count: number }; b: { count: number }; low: number; significant: boolean };
  };
  assert.deepEqual(
    j.sessions.map((s) => s.arm),
    ['A', 'B', 'A', 'B'],
  );
  for (const s of j.sessions)
    assert.ok(
      s.phases[0]!.xruns >= 3,
      `each session counts its 3 injected stalls: ${JSON.stringify(j.sessions)}`,
    );
  assert.ok(j.total.a.count >= 6 && j.total.b.count >= 6, JSON.stringify(j.total));
  assert.equal(tree.readProc('sys/vm/swappiness').trim(), '60');
});

// Measured here (load average 28 from other jobs, 2 cores): A (SCHED_FIFO 80) 1 xrun, B
// (SCHED_OTHER) 310 in 2 × 4.5 s of `cpu` load: ratio 278, 95 % CI 50–11019. How many xruns
// SCHED_OTHER suffers depends on the machine's load, so only the direction is asserted: the
// normal-priority player is never significantly better than the real-time one.
test(
  'under CPU load, dropping the player to SCHED_OTHER never makes xruns rarer',
  { skip },
  async () => {
    const r = await runCli(
      [
        'try',
        'player.priority=0',
        '--device',
        'plug:jack',
        '--period',
        '256',
        '--phases',
        'cpu:4s',
        '--rounds',
        '2',
        '--capture',
        'none',
        '--proc-root',
        tree.procRoot,
        '--sys-root',
        tree.sysRoot,
        '--json',
      ],
      { env, timeoutMs: 120_000 },
    );
    assert.ok(r.stdout.trim().startsWith('{'), `JSON on stdout; stderr: ${r.stderr}`);
    const j = JSON.parse(r.stdout) as {
      knobs: { to: string }[];
      total: {
        a: { count: number };
        b: { count: number };
        high: number | null;
        significant: boolean;
      };
      exitCode: number;
    };
    assert.equal(j.knobs[0]!.to, 'SCHED_OTHER');
    assert.ok(
      !(j.total.significant && j.total.high !== null && j.total.high < 1),
      JSON.stringify(j.total),
    );
    assert.equal(j.exitCode, 2, 'a lower priority is never reported as a cure');
    assert.equal(r.code, 2);
  },
);
