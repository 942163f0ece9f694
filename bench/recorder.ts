// Benchmark: the flight recorder's cost. The same IO+CPU load (src/load: `fsync` — small writes,
// each fsync'd, many context switches and block IRQs — plus one `cpu` worker) runs with the
// recorder off and on, alternated in one run (off-on, on-off, …, ≥ 3 rounds), quiet and with a
// CPU hog beside it. Printed: load throughput on/off (goal ≥ 0.95), the reader's own CPU
// (xrunhunt's process, minus what it uses with the recorder off), events/s, lost events.
// The recorder's lines go through the same bounded windows the run probe keeps.
//
// On a kernel without kprobe events or sound (this project's CI host) the xrun probe is absent:
// the benchmark says so and measures the scheduler/IRQ/timer tracing, which is the cost.
//   sudo npm run bench:recorder -- [--seconds 6] [--rounds 4] [--dir DIR]
// Ratios are of arithmetic means over the rounds; state the load average with them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRecorderSource, recorderUnavailable } from '../src/kernel/recorder-source.js';
import { createLoad } from '../src/load/index.js';
import { RecorderWindows, windowSeconds } from '../src/run/recorder-windows.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '4' },
    dir: { type: 'string', default: tmpdir() },
    'sys-root': { type: 'string', default: '/sys' },
  },
});
const seconds = Number(values.seconds);
const rounds = Math.max(3, Number(values.rounds));

// Arithmetic mean: on this shared VM a load sometimes makes no progress in a whole run (0 MB/s
// beside the hogs at load average 13), which a geometric mean cannot take.
function mean(xs: number[]): number {
  return xs.reduce((a, x) => a + x, 0) / xs.length;
}
const ratioOf = (on: number[], off: number[]): number =>
  mean(off) > 0 ? mean(on) / mean(off) : Number.NaN;

interface RunResult {
  /** fsync load MB/s and cpu load MB/s hashed. */
  io: number;
  cpu: number;
  /** CPU time of this process per wall second (ms/s). */
  selfCpuMsPerS: number;
  lines: number;
  lost: number;
  bytes: number;
  /** Lines per event name (what dominates the stream). */
  byEvent: Map<string, number>;
}

// One measured run: the loads for `seconds`, with or without the recorder reading beside them.
async function runOnce(recorder: boolean, journalDir: string): Promise<RunResult> {
  const windows = new RecorderWindows(() => windowSeconds(0.005), undefined, true);
  const source = recorder
    ? createRecorderSource({
        journalDir,
        toolVersion: 'bench',
        command: 'bench:recorder',
        sysRoot: values['sys-root'],
        xrunProbe: 'optional',
        onLine: (l) => windows.push(l),
      })
    : null;
  if (source) await source.start();
  const ioLoad = createLoad('fsync', { durationMs: seconds * 1000, dir: values.dir, workers: 1 });
  const cpuLoad = createLoad('cpu', { durationMs: seconds * 1000, workers: 1 });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const [io, cpu] = await Promise.all([ioLoad.start(), cpuLoad.start()]);
  const wall = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu0);
  await source?.close();
  return {
    io: io.mbPerSec,
    cpu: cpu.mbPerSec,
    selfCpuMsPerS: (used.user + used.system) / 1000 / wall,
    lines: source?.counts.lines ?? 0,
    lost: source?.counts.lostEvents ?? 0,
    bytes: source?.counts.bytes ?? 0,
    byEvent: windows.byEvent,
  };
}

// A CPU hog beside the load (the "loaded" scenario): one shell busy loop per core.
function startHogs(): ChildProcess[] {
  return cpus().map(() => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
}

const why = recorderUnavailable({ sysRoot: values['sys-root'], xrunProbe: 'optional' });
if (why) {
  console.error(
    `bench:recorder: cannot run the recorder here: ${why} (as root: mount -t tracefs nodev /sys/kernel/tracing)`,
  );
  process.exit(1);
}
const kernelHasKprobes = recorderUnavailable({ sysRoot: values['sys-root'] }) === null;
console.log(
  `kernel ${readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim()}, ${cpus().length} CPUs, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} at start`,
);
if (!kernelHasKprobes)
  console.log(
    'no kprobe events on this kernel (and no ALSA): the xrun probe is absent; measuring the scheduler/IRQ/timer tracing, which is the cost',
  );

const journalDir = mkdtempSync(join(tmpdir(), 'xrunhunt-bench-recorder-'));
let failed = false;
try {
  for (const scenario of ['quiet', 'loaded'] as const) {
    const hogs = scenario === 'loaded' ? startHogs() : [];
    try {
      const off: RunResult[] = [];
      const on: RunResult[] = [];
      for (let i = 0; i < rounds; i++) {
        // ABAB with the order swapped each round: the shared machine drifts.
        const order = i % 2 === 0 ? [false, true] : [true, false];
        for (const rec of order) (rec ? on : off).push(await runOnce(rec, journalDir));
        const a = off[i]!;
        const b = on[i]!;
        console.log(
          `${scenario} round ${i + 1}: off io ${a.io.toFixed(2)} MB/s cpu ${a.cpu.toFixed(0)} MB/s | on io ${b.io.toFixed(2)} MB/s cpu ${b.cpu.toFixed(0)} MB/s, ${(b.lines / seconds).toFixed(0)} events/s, lost ${b.lost}, reader ${(b.selfCpuMsPerS - a.selfCpuMsPerS).toFixed(1)} ms/s`,
        );
      }
      const ioRatio = ratioOf(
        on.map((r) => r.io),
        off.map((r) => r.io),
      );
      const cpuRatio = ratioOf(
        on.map((r) => r.cpu),
        off.map((r) => r.cpu),
      );
      const ratio = Math.sqrt(ioRatio * cpuRatio);
      const reader =
        on.reduce((a, r) => a + r.selfCpuMsPerS, 0) / on.length -
        off.reduce((a, r) => a + r.selfCpuMsPerS, 0) / off.length;
      const eventsPerS = on.reduce((a, r) => a + r.lines, 0) / on.length / seconds;
      const lost = on.reduce((a, r) => a + r.lost, 0);
      const mbPerS = on.reduce((a, r) => a + r.bytes, 0) / on.length / seconds / 1e6;
      console.log(
        `${scenario}: throughput on/off io ${ioRatio.toFixed(3)}, cpu ${cpuRatio.toFixed(3)}, combined ${ratio.toFixed(3)} (goal ≥ 0.95) ${ratio >= 0.95 ? 'PASS' : 'FAIL'}; reader CPU ${reader.toFixed(1)} ms/s (${(reader / 10).toFixed(2)} % of one core); ${eventsPerS.toFixed(0)} events/s, ${mbPerS.toFixed(2)} MB/s of trace text; lost events ${lost}; load average ${loadavg()[0]!.toFixed(2)}`,
      );
      const byEvent = new Map<string, number>();
      for (const r of on) for (const [k, n] of r.byEvent) byEvent.set(k, (byEvent.get(k) ?? 0) + n);
      const total = [...byEvent.values()].reduce((a, n) => a + n, 0);
      console.log(
        `${scenario}: lines by event: ${[...byEvent]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${k.trim()} ${((100 * n) / Math.max(1, total)).toFixed(1)} %`)
          .join(', ')}`,
      );
      if (!(ratio >= 0.95)) failed = true;
    } finally {
      for (const h of hogs) h.kill('SIGKILL');
    }
  }
} finally {
  rmSync(journalDir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
