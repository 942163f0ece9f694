// Benchmark: the `write` load against its peer, `dd if=/dev/zero of=F bs=1M count=N conv=fsync`,
// on the same folder with the same byte count, alternating runs so both see the same disk
// state. Goal: the load's MB/s ≥ 0.8 × dd's.
//   npm run bench:load -- [--dir DIR] [--mib N] [--rounds R]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLoad } from '../src/load/index.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: tmpdir() },
    // 1 GiB: long enough that process start and the final fsync are both a small share.
    mib: { type: 'string', default: '1024' },
    // 6 rounds (always even, see below): single runs on a shared VM disk vary by 3× or more.
    rounds: { type: 'string', default: '6' },
  },
});
const mib = Number(values.mib);
// Rounds are made even and ordered dd-load, load-dd, ...: measured here, consecutive 1 GiB
// runs on the same ext4 (mounted with `discard`) alternate fast and slow whatever the writer
// (dd alone: 224, 758, 494, 882, 446, 983 MB/s), so each tool must sit as often at odd as at
// even positions.
const rounds = Math.ceil(Number(values.rounds) / 2) * 2;
const bytes = mib * 1024 * 1024;

// Geometric mean: the runs alternate fast/slow (see below), so a median of an even count
// lands between the two groups; the geometric mean weighs both groups alike.
function geomean(xs: number[]): number {
  return Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
}

// Flushes writeback left by the previous run so each run starts from the same state.
function settle(): void {
  spawnSync('sync');
}

function runDd(dir: string): number {
  const work = mkdtempSync(join(dir, 'xrunhunt-bench-dd-'));
  try {
    const t0 = performance.now();
    const r = spawnSync(
      'dd',
      ['if=/dev/zero', `of=${join(work, 'F')}`, 'bs=1M', `count=${mib}`, 'conv=fsync'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const seconds = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`dd failed: ${r.stderr.toString()}`);
    return bytes / 1e6 / seconds;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function runLoad(dir: string): Promise<{ self: number; wall: number }> {
  const load = createLoad('write', {
    durationMs: 600_000,
    dir,
    sizeBytes: bytes,
    limitBytes: bytes,
    workers: 1,
  });
  const t0 = performance.now();
  const stats = await load.start();
  const wall = (performance.now() - t0) / 1000;
  if (stats.stopReason !== 'limit' || stats.bytes < bytes) {
    throw new Error(
      `write load ended by ${stats.stopReason} after ${stats.bytes} bytes: ${stats.stopDetail ?? ''}`,
    );
  }
  return { self: stats.mbPerSec, wall: stats.bytes / 1e6 / wall };
}

const dd: number[] = [];
const self: number[] = [];
const wall: number[] = [];
for (let i = 0; i < rounds; i++) {
  // Alternate which one goes first: the machine is shared and its state drifts.
  const loadFirst = i % 2 === 1;
  if (loadFirst) {
    settle();
    const r = await runLoad(values.dir);
    self.push(r.self);
    wall.push(r.wall);
  }
  settle();
  dd.push(runDd(values.dir));
  if (!loadFirst) {
    settle();
    const r = await runLoad(values.dir);
    self.push(r.self);
    wall.push(r.wall);
  }
  console.log(
    `round ${i + 1}: dd ${dd[i]!.toFixed(0)} MB/s, write load ${self[i]!.toFixed(0)} MB/s (wall incl. start ${wall[i]!.toFixed(0)} MB/s)`,
  );
}
const ratio = geomean(self) / geomean(dd);
console.log(`\nbytes per run: ${mib} MiB in ${values.dir}`);
console.log(`dd bs=1M conv=fsync  geometric mean ${geomean(dd).toFixed(0)} MB/s`);
console.log(
  `xrunhunt load write  geometric mean ${geomean(self).toFixed(0)} MB/s (wall clock incl. worker start: ${geomean(wall).toFixed(0)} MB/s)`,
);
console.log(`ratio load/dd: ${ratio.toFixed(2)} (goal ≥ 0.80) ${ratio >= 0.8 ? 'PASS' : 'FAIL'}`);
process.exitCode = ratio >= 0.8 ? 0 : 1;
