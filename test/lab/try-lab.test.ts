// `xrunhunt try` inside the lab kernel, against a ground truth: test_lockup turns interrupts
// off for 10 ms at a time on CPU 0 (the lab pins the injector, the inner command and every
// device interrupt there). With the player on CPU 0 (A) snd-dummy's hrtimer and the player
// share that CPU, so the sections delay the stream; with player.cpu=1 (B) the stream (its
// hrtimer starts on the player's CPU) runs beside them. So `try player.cpu=1` must show the
// injected offender's dumps drop significantly (the total xrun rate under TCG is dominated by
// the emulation, see below), and `try vm.swappiness=10` — no memory pressure at all, player on CPU 0 in both arms
// — no significant change. One guest boot runs both; short rounds (2 × 8 s per arm) keep it
// within about 10 min under TCG on a loaded host. Serial: it needs the host's CPUs for the guest.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSkip } from '../helpers/lab.js';
import { innerXrunhuntArgv } from '../../src/lab/lab-runner.js';
import { shellQuote } from '../../src/lab/guest-script.js';
import type { TryResult } from '../../src/try/try-result.js';

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-try-lab-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** One `try` in the guest: JSON to FILE.json, stderr to FILE.err, exit status to FILE.rc. */
function tryLine(knob: string, file: string): string {
  const argv = innerXrunhuntArgv([
    'try',
    knob,
    '--device',
    'hw:CARD=Dummy,DEV=0',
    '--period',
    '256',
    '--periods',
    '2',
    '--cpu',
    '0',
    '--phases',
    'idle:8s',
    '--rounds',
    '2',
    '--json',
  ]);
  return `${argv.map(shellQuote).join(' ')} > ${file}.json 2> ${file}.err; echo $? > ${file}.rc`;
}

function readTry(out: string, file: string): { rc: number; result: TryResult; err: string } {
  const err = readFileSync(join(out, `${file}.err`), 'utf8');
  const text = readFileSync(join(out, `${file}.json`), 'utf8');
  const start = text.indexOf('{');
  assert.ok(start >= 0, `${file}: a JSON result; stderr:\n${err.slice(-3000)}`);
  return {
    rc: Number(readFileSync(join(out, `${file}.rc`), 'utf8').trim()),
    result: JSON.parse(text.slice(start)) as TryResult,
    err,
  };
}

test(
  'lab try under an injected CPU 0 lockup: player.cpu=1 makes the injected offender vanish significantly, vm.swappiness=10 changes nothing',
  {
    // 8–9 min under TCG, and the swappiness half sits near the edge of its interval (TCG's xrun
    // counts are more spread than Poisson): run on request, not in every CI run.
    skip:
      process.env['XRUNHUNT_LAB_TRY'] === '1'
        ? labSkip()
        : 'set XRUNHUNT_LAB_TRY=1 to run (8–9 min under TCG; see docs/try.md)',
    timeout: 840_000,
  },
  async () => {
    const out = join(work, 'run');
    const r = await execInLab(
      `${tryLine('player.cpu=1', 'cpu')}; ${tryLine('vm.swappiness=10', 'swap')}`,
      {
        labOptions: ['--inject', 'lockup:10:irq', '--out', out, '--timeout', '13m'],
        timeoutMs: 800_000,
      },
    );
    console.log(`# lab stderr tail:\n${r.stderr.slice(-1500).replace(/^/gm, '# ')}`);
    assert.match(r.stderr, /inject lockup 10 ms irq/);
    const cpu = readTry(out, 'cpu');
    const swap = readTry(out, 'swap');
    const line = (name: string, t: TryResult): string =>
      `# lab try ${name}: A ${t.total?.a.count} xruns/${t.total?.a.minutes.toFixed(2)} min, B ${t.total?.b.count}/${t.total?.b.minutes.toFixed(2)} min, ratio ${t.total?.ratio?.toFixed(3)} (${t.total?.low.toFixed(3)}–${t.total?.high})`;
    console.log(line('player.cpu=1', cpu.result));
    console.log(line('vm.swappiness=10', swap.result));

    // player.cpu=1: 2 rounds each way, all sessions complete. Under TCG on a loaded host the
    // emulation itself costs xruns at 256 × 2 on both CPUs (measured: ~630/min in A, ~720/min
    // in B), so the total is NOT what is deterministic; the injected offender is: its dumps
    // (test_lockup's functions) are many in A and vanish in B, significantly.
    assert.equal(cpu.result.sessions.length, 4, cpu.err.slice(-2000));
    const top = cpu.result.topOffender!;
    assert.ok(top, `a top offender; ${cpu.result.verdict}`);
    assert.match(top.name, /test_lockup/, `top offender ${top.name}`);
    assert.ok(top.a >= 10, `A: ${top.a} dumps of ${top.name}`);
    assert.ok(top.b <= top.a / 10, `B: ${top.b} dumps of ${top.name} (A ${top.a})`);
    assert.equal(top.rate.significant, true, cpu.result.verdict);

    // vm.swappiness=10 without memory pressure: both arms suffer the same lockups.
    assert.equal(swap.result.sessions.length, 4, swap.err.slice(-2000));
    const s = swap.result.total!;
    assert.ok(s.a.count >= 10 && s.b.count >= 10, `A ${s.a.count}, B ${s.b.count}`);
    // Measured once: ratio 0.865, CI 0.686–1.088 (the xruns are overdispersed under TCG).
    assert.equal(s.significant, false, swap.result.verdict);
    assert.ok(s.low < 1 && s.high > 1, `interval ${s.low}–${s.high} holds 1`);
    assert.equal(swap.rc, 2, 'exit 2: no significant change');
    // The swappiness was put back after each B round (the probe's restore, journaled).
    assert.ok(!/could not restore/.test(swap.err), swap.err.slice(-2000));
  },
);
