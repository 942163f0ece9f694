// Logging cost, pino (what the daemons use) against winston, measured in the same run:
// records/s of synchronous JSON appends to a file, and the event loop's delay while logging
// (monitorEventLoopDelay p99 during a burst interleaved with setImmediate turns, as a
// daemon's other work would be). Same record shape as serve's upload line. Prints ratios.
import { mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import winston from 'winston';

const N = Number(process.env['BENCH_RECORDS'] ?? 50_000);
const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-bench-log-'));
const record = (i: number) => ({
  event: 'upload',
  result: 'accepted',
  status: 201,
  client: '127.0.0.1',
  id: 'f866cd54c32e27013577d98b4609cb51dc3eacf338736e5c1f265fb27a91ecd1',
  bytes: 4000 + i,
  durationMs: 3,
});

interface Result {
  name: string;
  perSec: number;
  loopP99Ms: number;
  bytes: number;
}

async function run(
  name: string,
  log: (i: number) => void,
  file: string,
  end: () => Promise<void>,
): Promise<Result> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    log(i);
    if (i % 100 === 99) await new Promise((r) => setImmediate(r));
  }
  await end();
  const ms = performance.now() - t0;
  h.disable();
  return {
    name,
    perSec: (N * 1000) / ms,
    loopP99Ms: h.percentile(99) / 1e6,
    bytes: statSync(file).size,
  };
}

const pinoFile = join(dir, 'pino.log');
const p = pino(
  {
    base: { cmd: 'serve' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (l) => ({ level: l }) },
  },
  pino.destination({ fd: openSync(pinoFile, 'a'), sync: true }),
);
const winFile = join(dir, 'winston.log');
const w = winston.createLogger({
  level: 'info',
  format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
  defaultMeta: { cmd: 'serve' },
  transports: [new winston.transports.File({ filename: winFile })],
});

// Warm-up of both (JIT), then the measured runs, pino first and winston second, twice.
const results: Result[] = [];
for (let round = 0; round < 2; round++) {
  results.push(
    await run(
      'pino',
      (i) => p.info(record(i), 'upload'),
      pinoFile,
      async () => {},
    ),
  );
  results.push(
    await run(
      'winston',
      (i) => w.info('upload', record(i)),
      winFile,
      () =>
        new Promise<void>((done) => {
          // winston's file transport writes asynchronously: wait until everything is out.
          const check = (): void => {
            if (w.writableLength === 0) setTimeout(done, 50);
            else setTimeout(check, 5);
          };
          check();
        }),
    ),
  );
}
w.close();
const last = (n: string): Result => results.filter((r) => r.name === n).at(-1)!;
const [lp, lw] = [last('pino'), last('winston')];
console.log(
  `logging bench: ${N} records each, ${cpus().length} CPUs, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (const r of [lp, lw]) {
  console.log(
    `  ${r.name.padEnd(8)} ${Math.round(r.perSec).toString().padStart(8)} records/s   event-loop delay p99 ${r.loopP99Ms.toFixed(1)} ms`,
  );
}
console.log(
  `  pino/winston: ${(lp.perSec / lw.perSec).toFixed(2)}× records/s, event-loop p99 ${(lw.loopP99Ms / lp.loopP99Ms).toFixed(2)}× lower`,
);
rmSync(dir, { recursive: true, force: true });
