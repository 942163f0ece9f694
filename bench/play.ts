// Benchmark: xrunhunt's real-time writer against its peer, `chrt -f 70 aplay`, on the same
// JACK dummy clock (plug:jack, period 64 / buffer 128 at 48 kHz) under the same CPU + IO load
// (busy loops + a dd/fsync writer), in the same run. Goals (issue 15): xrunhunt's xruns ≤
// aplay's, and its CPU ≤ 1.2 × aplay's. Prints both xrun counts and both CPU times (user + sys
// of the whole process, start-up included), and the xrunhunt writer thread's own CPU and minor
// faults per second (from its JSON summary).
// xrunhunt runs as users run it, the compiled CLI (bin/xrunhunt.js → dist/), when dist/ is at
// least as new as every source file; otherwise from the sources through tsx, whose start-up
// transpiling costs about 0.5 s of CPU more (the header line says which). `--cli dist|tsx`
// forces one.
// Default mode `concurrent`: both play at the same time as two clients of the same JACK
// server, so load bursts on a shared machine hit both equally; `alternate` runs them one
// after the other (each alone on the CPU, but at different moments of the load).
//   npm run bench:play -- [--duration SECONDS] [--rounds R] [--busy N] [--no-load] [--mode concurrent|alternate] [--cli auto|dist|tsx]
//   npm run bench:play -- --idle          (10-minute idle run of xrunhunt alone: goal 0 xruns)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureJack } from '../test/helpers/jack.js';
import { repoRoot } from '../test/helpers/cli.js';
import { steadyMinorFaults } from './realtime-thread-faults.js';
import { chooseBuild } from './built-or-source.js';
import { rateRatio } from '../src/stats/rate-ratio.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    // One round = one aplay run + one xrunhunt run; more rounds average out load bursts.
    rounds: { type: 'string', default: '1' },
    // One busy loop per CPU keeps every core contended, the case SCHED_FIFO must win.
    busy: { type: 'string', default: String(availableParallelism()) },
    'no-load': { type: 'boolean', default: false },
    idle: { type: 'boolean', default: false },
    mode: { type: 'string', default: 'concurrent' },
    cli: { type: 'string', default: 'auto' },
  },
});
const idle = values.idle;
const seconds = idle && values.duration === '60' ? 600 : Number(values.duration);
const rounds = Number(values.rounds);
const withLoad = !idle && !values['no-load'];
const busy = Number(values.busy);

// The built CLI when it is current (or asked for), the sources through tsx otherwise.
function xrunhuntCommand(): { argv: string[]; label: string } {
  const tsx = {
    argv: [process.execPath, '--import', 'tsx', join(repoRoot, 'src', 'cli', 'main.ts')],
    label: 'xrunhunt from src/ through tsx (start-up transpiling included)',
  };
  const dist = {
    argv: [process.execPath, join(repoRoot, 'bin', 'xrunhunt.js')],
    label: 'xrunhunt built (bin/xrunhunt.js)',
  };
  const choice = values.cli === 'dist' || values.cli === 'tsx' ? values.cli : 'auto';
  const { useDist, stale } = chooseBuild(repoRoot, choice);
  if (useDist) return dist;
  return stale
    ? { ...tsx, label: `${tsx.label}; dist/ is missing or older than src/: npm run build` }
    : tsx;
}
const xrunhuntCli = xrunhuntCommand();

interface RunResult {
  xruns: number;
  cpuS: number;
  wallS: number;
  /** xrunhunt only: the writer thread's own CPU and minor faults (from the JSON summary). */
  writer?: { cpuMs: number; minorFaults: number; seconds: number } | null;
  /** xrunhunt only: its writer's minor faults/s once running (from /proc, 10 s in to 2 s before the end). */
  steadyFaultsPerS?: number | null;
}

// Runs argv under /usr/bin/time so user+sys CPU of the whole process tree is measured.
function timed(
  argv: string[],
  onSpawn: (pid: number) => void = () => undefined,
): Promise<{ stdout: string; stderr: string; cpuS: number; wallS: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-bench-'));
  const timeFile = join(dir, 'time');
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) onSpawn(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const [u, s] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
      rmSync(dir, { recursive: true, force: true });
      resolve({
        stdout,
        stderr,
        cpuS: (u ?? 0) + (s ?? 0),
        wallS: Number(process.hrtime.bigint() - t0) / 1e9,
      });
    });
  });
}

async function runAplay(): Promise<RunResult> {
  const r = await timed([
    'chrt',
    '-f',
    '70',
    'aplay',
    '-q',
    '-D',
    'plug:jack',
    '--period-size=64',
    '--buffer-size=128',
    '-f',
    'S16_LE',
    '-c2',
    '-r48000',
    '-d',
    String(seconds),
    '/dev/zero',
  ]);
  return { xruns: (r.stderr.match(/underrun!!!/g) ?? []).length, cpuS: r.cpuS, wallS: r.wallS };
}

async function runXrunhunt(): Promise<RunResult> {
  let steady: Promise<(tid: number) => number | null> = Promise.resolve(() => null);
  const r = await timed(
    [
      ...xrunhuntCli.argv,
      'play',
      '--device',
      'plug:jack',
      '--period',
      '64',
      '--periods',
      '2',
      '--rt-priority',
      '70',
      '--duration',
      `${seconds}s`,
      '--json',
    ],
    (pid) => {
      if (seconds >= 15) steady = steadyMinorFaults(pid, 10, seconds - 2);
    },
  );
  const j = JSON.parse(r.stdout) as {
    xruns: unknown[];
    seconds: number;
    writerThread: { cpuMs: number; minorFaults: number } | null;
    policy: { tid: number } | null;
  };
  const writer = j.writerThread ? { ...j.writerThread, seconds: j.seconds } : null;
  return {
    xruns: j.xruns.length,
    cpuS: r.cpuS,
    wallS: r.wallS,
    writer,
    steadyFaultsPerS: j.policy ? (await steady)(j.policy.tid) : null,
  };
}

// CPU + IO load: busy loops on every core and a writer that fsyncs 64 MiB at a time.
function startLoad(dir: string): () => void {
  const kids: ReturnType<typeof spawn>[] = [];
  for (let i = 0; i < busy; i++) {
    kids.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore', detached: true }));
  }
  kids.push(
    spawn(
      'sh',
      [
        '-c',
        `while :; do dd if=/dev/zero of="${join(dir, 'io')}" bs=1M count=64 conv=fsync status=none; done`,
      ],
      { stdio: 'ignore', detached: true },
    ),
  );
  return () => {
    for (const k of kids) {
      try {
        if (k.pid !== undefined) process.kill(-k.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
}

const jack = await ensureJack();
const loadDir = mkdtempSync(join(tmpdir(), 'xrh-bench-load-'));
const stopLoad = withLoad ? startLoad(loadDir) : () => undefined;
process.on('SIGINT', () => {
  stopLoad();
  void jack.stop().then(() => process.exit(130));
});
const totals = { aplay: { xruns: 0, cpuS: 0 }, xrunhunt: { xruns: 0, cpuS: 0 } };
const writerTotals = { cpuMs: 0, minorFaults: 0, seconds: 0 };
try {
  console.log(
    `plug:jack period 64 / buffer 128 @ 48 kHz, ${seconds} s per run, ${idle ? 1 : rounds} round(s), ${idle ? 'xrunhunt alone' : values.mode}, ` +
      (withLoad ? `load: ${busy} busy loops + dd 64 MiB conv=fsync loop` : 'no load') +
      `; ${xrunhuntCli.label}`,
  );
  for (let i = 0; i < (idle ? 1 : rounds); i++) {
    // Alternate who goes first so neither always meets the same phase of the load.
    const order = idle ? ['xrunhunt'] : i % 2 === 0 ? ['aplay', 'xrunhunt'] : ['xrunhunt', 'aplay'];
    const together = !idle && values.mode === 'concurrent';
    const results = together
      ? await Promise.all(order.map((who) => (who === 'aplay' ? runAplay() : runXrunhunt())))
      : [];
    for (const [k, who] of order.entries()) {
      const r = together ? results[k]! : who === 'aplay' ? await runAplay() : await runXrunhunt();
      const t = totals[who as 'aplay' | 'xrunhunt'];
      t.xruns += r.xruns;
      t.cpuS += r.cpuS;
      if (r.writer) {
        writerTotals.cpuMs += r.writer.cpuMs;
        writerTotals.minorFaults += r.writer.minorFaults;
        writerTotals.seconds += r.writer.seconds;
      }
      console.log(
        `round ${i + 1} ${who.padEnd(8)} xruns ${String(r.xruns).padStart(4)}  CPU ${r.cpuS.toFixed(2)} s (${((r.cpuS / r.wallS) * 100).toFixed(1)} % of ${r.wallS.toFixed(1)} s)` +
          (r.writer
            ? `  writer thread: CPU ${(r.writer.cpuMs / 1000).toFixed(2)} s, ${(r.writer.minorFaults / Math.max(r.writer.seconds, 0.001)).toFixed(1)} minor faults/s` +
              (r.steadyFaultsPerS == null
                ? ''
                : ` (${r.steadyFaultsPerS.toFixed(2)}/s once running)`)
            : ''),
      );
    }
  }
} finally {
  stopLoad();
  rmSync(loadDir, { recursive: true, force: true });
  await jack.stop();
}
if (idle) {
  console.log(
    `idle: xrunhunt xruns ${totals.xrunhunt.xruns} (goal 0): ${totals.xrunhunt.xruns === 0 ? 'PASS' : 'FAIL'}`,
  );
} else {
  const { aplay, xrunhunt } = totals;
  const ratio =
    aplay.xruns === 0 ? (xrunhunt.xruns === 0 ? 1 : Infinity) : xrunhunt.xruns / aplay.xruns;
  console.log(
    `total: aplay ${aplay.xruns} xruns, CPU ${aplay.cpuS.toFixed(2)} s | xrunhunt ${xrunhunt.xruns} xruns, CPU ${xrunhunt.cpuS.toFixed(2)} s`,
  );
  // On a shared VM both players get spontaneous xruns from the kernel's own latency (measured
  // here: a SCHED_FIFO writer woken on a CPU where dd held the kernel non-preemptible for
  // 2.7 ms), so a few counts say little: the exact Poisson rate ratio and its 95 % interval say
  // whether xrunhunt's rate is distinguishable from aplay's.
  const minutes = (seconds * rounds) / 60;
  const rr = rateRatio({ count: aplay.xruns, minutes }, { count: xrunhunt.xruns, minutes });
  console.log(
    rr.ratio === null
      ? 'xrun rate ratio xrunhunt/aplay: no xruns in either (no information)'
      : `xrun rate ratio xrunhunt/aplay = ${Number.isFinite(rr.ratio) ? rr.ratio.toFixed(2) : '∞'} ` +
          `(95 % CI ${rr.low.toFixed(2)}–${Number.isFinite(rr.high) ? rr.high.toFixed(2) : '∞'}, p ${rr.p.toFixed(3)}): ` +
          (rr.low > 1
            ? 'xrunhunt has significantly more xruns than aplay'
            : rr.high < 1
              ? 'xrunhunt has significantly fewer xruns than aplay'
              : 'not distinguishable from aplay at this count'),
  );
  const cpuRatio = xrunhunt.cpuS / Math.max(aplay.cpuS, 0.01);
  console.log(
    `xruns xrunhunt/aplay = ${Number.isFinite(ratio) ? ratio.toFixed(2) : '∞'} (goal ≤ 1: ${xrunhunt.xruns <= aplay.xruns ? 'PASS' : 'FAIL'}); ` +
      `CPU xrunhunt/aplay = ${cpuRatio.toFixed(2)}× (goal ≤ 1.2: ${cpuRatio <= 1.2 ? 'PASS' : 'FAIL'})`,
  );
  if (writerTotals.seconds > 0) {
    console.log(
      `writer thread: CPU ${(writerTotals.cpuMs / 1000).toFixed(2)} s, ` +
        `${(writerTotals.minorFaults / writerTotals.seconds).toFixed(1)} minor faults/s`,
    );
  }
}
