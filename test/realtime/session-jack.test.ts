// `xrunhunt session` end to end on the JACK dummy backend: a real clock and real -EPIPE
// underruns, but no kernel sound (plug:jack has no kernel PCM), so the report must say why
// it has no kernel dumps. Also: compare of two real bundles, and kill -9 mid-run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliCommand, repoRoot, runCli } from '../helpers/cli.js';
import { ensureJack, jackMissingReason, type JackServer } from '../helpers/jack.js';
import { createFakeSystem, dummyCard } from '../helpers/fake-proc.js';
import { readBundle } from '../../src/bundle/index.js';
import { parseEventLog } from '../../src/session/event-log.js';
import type { SessionReport } from '../../src/session/report-model.js';
import type { Comparison } from '../../src/session/compare.js';

const skip = jackMissingReason() ?? false;
let jack: JackServer | null = null;
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-session-jack-'));
// Journals of these runs stay in the test's own folder, never the user's.
const env = { XDG_STATE_HOME: join(work, 'state') };

before(async () => {
  if (!skip) jack = await ensureJack();
});
after(async () => {
  await jack?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Runs a stall-injected session into `out` and returns its JSON report. */
async function stalledSession(
  out: string,
): Promise<{ code: number | null; report: SessionReport; stderr: string }> {
  // 30 ms stalls against a 10.7 ms buffer (256 × 2 at 48 kHz): every stall is an underrun
  // (platform facts: ≥ 10 ms stalls gave 10/10 at a 2.7 ms buffer). Stalls at 1 s, 2 s, 3 s.
  const r = await runCli(
    [
      'session',
      '--device',
      'plug:jack',
      '--period',
      '256',
      '--periods',
      '2',
      '--phases',
      'idle:5s',
      '--inject-stall',
      '30x3',
      '--out',
      out,
      '--json',
    ],
    { env, timeoutMs: 60_000 },
  );
  assert.ok(r.stdout.trim().startsWith('{'), `JSON on stdout; stderr: ${r.stderr}`);
  return { code: r.code, report: JSON.parse(r.stdout) as SessionReport, stderr: r.stderr };
}

let firstOut = '';

test(
  'injected stalls show up as xruns, exit 2, and the report says why no kernel dumps',
  { skip },
  async () => {
    firstOut = join(work, 'run1');
    const { code, report } = await stalledSession(firstOut);
    assert.equal(code, 2);
    assert.ok(
      report.xruns.length >= 3,
      `at least the 3 injected xruns, got ${report.xruns.length}`,
    );
    assert.ok(report.injectedXruns >= 3, `injected: ${report.injectedXruns}`);
    assert.ok(
      report.xruns.every((x) => x.phase === 'idle'),
      'every xrun attributed to the idle phase',
    );
    assert.equal(report.phases.length, 1);
    assert.equal(report.phases[0]!.xruns, report.xruns.length);
    assert.equal(report.kernelCapture.pcm, null);
    assert.equal(report.events.length, 0);
    assert.ok(
      report.limitations.some((l) => /plug:jack has no kernel PCM/.test(l)),
      `limitations: ${report.limitations.join(' | ')}`,
    );
    assert.ok(report.conclusion.some((c) => /^No kernel (XRUN dumps|PCM)|no kernel PCM/.test(c)));
    assert.ok(report.conclusion.some((c) => /injected on purpose/.test(c)));
    assert.equal(report.bundle, firstOut);

    // The bundle folder: a readable bundle with the same xruns, and the full event log.
    const bundle = await readBundle(join(firstOut, 'bundle.json.gz'));
    assert.equal(bundle.kind, 'session');
    assert.equal(bundle.xruns.length, report.xruns.length);
    assert.equal(bundle.phases[0]!.xruns, report.xruns.length);
    assert.equal(bundle.params?.periodFrames, 256);
    assert.equal(bundle.scrubbed, true);
    const log = parseEventLog(readFileSync(join(firstOut, 'events.ndjson'), 'utf8'));
    assert.equal(log.truncatedTail, false);
    assert.deepEqual(log.badLines, []);
    const types = log.events.map((e) => e.type);
    assert.equal(types[0], 'session-start');
    assert.equal(types.at(-1), 'session-end');
    assert.ok(types.includes('playback-started'));
    assert.equal(types.filter((t) => t === 'xrun').length, report.xruns.length);
    assert.ok(existsSync(join(firstOut, 'report.txt')));
    assert.match(readFileSync(join(firstOut, 'report.txt'), 'utf8'), /^Conclusion\n/);
  },
);

test('compare of two real session bundles reports both sides', { skip }, async () => {
  assert.ok(firstOut, 'needs the first test');
  const secondOut = join(work, 'run2');
  const second = await stalledSession(secondOut);
  const r = await runCli(['compare', firstOut, secondOut, '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const c = JSON.parse(r.stdout) as Comparison;
  const b1 = await readBundle(join(firstOut, 'bundle.json.gz'));
  assert.equal(c.a.xruns, b1.xruns.length);
  assert.equal(c.b.xruns, second.report.xruns.length);
  assert.deepEqual(
    c.phases.map((p) => p.name),
    ['idle'],
  );
  assert.equal(c.phases[0]!.a!.xruns, b1.phases[0]!.xruns);
  // Headroom statistics come from the event logs' per-second samples.
  assert.ok(c.a.headroomSamples && c.a.headroomSamples.samples >= 3);
  assert.ok(c.a.headroomSamples.stddev >= 0);
  const text = await runCli(['compare', firstOut, secondOut], { env });
  assert.equal(text.code, 0);
  assert.match(text.stdout, /headroom stddev ms/);
});

test(
  'kill -9 mid-run: the event log is intact and the next run restores xrun_debug',
  { skip },
  async () => {
    const sys = createFakeSystem({ cards: [dummyCard({}, 0)] });
    try {
      const out = join(work, 'killed');
      const [cmd, ...pre] = cliCommand();
      const child = spawn(
        cmd!,
        [
          ...pre,
          'session',
          '--device',
          'plug:jack',
          '--period',
          '256',
          '--pcm',
          'pcmC0D0p',
          '--proc-root',
          sys.procRoot,
          '--phases',
          'idle:30s',
          '--capture',
          'none',
          '--out',
          out,
        ],
        { cwd: repoRoot, env: { ...process.env, ...env }, stdio: 'ignore' },
      );
      const exited = new Promise((r) => child.once('exit', r));
      const logPath = join(out, 'events.ndjson');
      // Wait until the session says xrun_debug is set (capture-status with a mask).
      const deadline = Date.now() + 20_000;
      let set = false;
      while (Date.now() < deadline && !set) {
        await sleep(100);
        if (!existsSync(logPath)) continue;
        set = parseEventLog(readFileSync(logPath, 'utf8')).events.some(
          (e) => e.type === 'capture-status' && e.mask === 3,
        );
      }
      assert.ok(set, 'the session set xrun_debug within 20 s');
      assert.equal(sys.readProc('asound/card0/pcm0p/xrun_debug').trim(), '3');
      await sleep(1500); // let a few stats events land
      child.kill('SIGKILL');
      await exited;

      const log = parseEventLog(readFileSync(logPath, 'utf8'));
      assert.deepEqual(log.badLines, [], 'every complete line is valid JSON');
      const types = log.events.map((e) => e.type);
      assert.equal(types[0], 'session-start');
      assert.ok(types.includes('phase-start'));
      assert.ok(!types.includes('session-end'), 'killed before the end');
      assert.equal(
        sys.readProc('asound/card0/pcm0p/xrun_debug').trim(),
        '3',
        'left changed by kill -9',
      );

      // The next xrunhunt start finds the dead run's journal and restores the original value.
      const next = await runCli(
        [
          'session',
          '--device',
          'plug:jack',
          '--period',
          '256',
          '--proc-root',
          sys.procRoot,
          '--phases',
          'idle:1s',
          '--capture',
          'none',
          '--out',
          join(work, 'next'),
          '--json',
        ],
        { env, timeoutMs: 30_000 },
      );
      assert.ok(next.code === 0 || next.code === 2, next.stderr);
      assert.match(next.stderr, /killed xrunhunt run/);
      assert.equal(sys.readProc('asound/card0/pcm0p/xrun_debug').trim(), '0');
    } finally {
      sys.cleanup();
    }
  },
);

test(
  'stress on JACK: every cell runs with --all and the summary agrees with the cells',
  { skip },
  async () => {
    const r = await runCli(
      [
        'stress',
        '--device',
        'plug:jack',
        '--periods',
        '256,512',
        '--loads',
        'idle',
        '--each',
        '2s',
        '--all',
        '--json',
      ],
      { env, timeoutMs: 60_000 },
    );
    assert.ok(r.code === 0 || r.code === 2, r.stderr);
    const s = JSON.parse(r.stdout) as {
      cells: { load: string; periodFrames: number; xruns: number | null; note: string | null }[];
      smallestXrunFree: Record<string, number | null>;
      exitCode: number;
    };
    assert.deepEqual(
      s.cells.map((c) => [c.load, c.periodFrames]),
      [
        ['idle', 256],
        ['idle', 512],
      ],
    );
    assert.ok(
      s.cells.every((c) => typeof c.xruns === 'number' && c.note === null),
      JSON.stringify(s.cells),
    );
    const passing = s.cells.filter((c) => c.xruns === 0).map((c) => c.periodFrames);
    assert.equal(s.smallestXrunFree['idle'], passing.length ? Math.min(...passing) : null);
    assert.equal(r.code, s.exitCode);
  },
);
