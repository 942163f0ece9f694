// Scale benchmark for the fleet store (not a test): generates N synthetic bundles (default
// 100,000; gzipped like real ones) from the project's hand-made fixture, then measures
//   - `cat` of the same files (the peer: the cost of just reading them) in the same run,
//   - ingest throughput of the real ingest path (read, gunzip, validate, hash, SQLite),
//   - a rerun over the unchanged folder (incremental: nothing re-read),
//   - ranking query time (plain and --by kernel),
//   - peak memory (max RSS) of the process.
// Goals: ≥ 2,000 bundles/s ingest, ranking < 1 s, peak memory < 500 MB.
// With --store postgres, also (same files, same run) on a throwaway PostgreSQL 15 cluster
// (fsync on): one writer, then --writers N (default 4) concurrent ingest processes, each a
// share of the files; goal ≥ 5,000 bundles/s with 4 writers, ranking < 1 s.
// Usage: npm run bench:aggregate [-- --count 100000 --keep] [-- --store postgres --writers 4]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ingestFiles, listBundleFiles } from '../src/bundle/ingest.js';
import { openFleetStore } from '../src/bundle/store.js';
import { syntheticBundle } from '../src/bundle/synthetic-fleet.js';
import { validateBundle } from '../src/bundle/validate.js';

const args = process.argv.slice(2);
const count = Number(args[args.indexOf('--count') + 1] ?? NaN) || 100_000;
const keep = args.includes('--keep');
const storeArg = args.includes('--store') ? args[args.indexOf('--store') + 1] : 'sqlite';
if (storeArg !== 'sqlite' && storeArg !== 'postgres') {
  console.error(`--store must be sqlite or postgres, found "${storeArg}"`);
  process.exit(2);
}
const writers = Number(args[args.indexOf('--writers') + 1] ?? NaN) || 4;
const GOAL_PG_INGEST_PER_S = 5000;

const GOAL_INGEST_PER_S = 2000;
const GOAL_RANK_MS = 1000;
const GOAL_RSS_MB = 500;

const secs = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e9;

const base = validateBundle(
  JSON.parse(
    readFileSync(
      new URL('../test/fixtures/bundles/session-ext4-writeback.json', import.meta.url),
      'utf8',
    ),
  ),
);
let sqliteRankMs = 0;

/** Same files into PostgreSQL: one writer, then N concurrent writer processes. */
async function benchPostgres(files: string[], sqliteRate: number): Promise<void> {
  const { startTestPostgres } = await import('../test/helpers/postgres.js');
  const { openPostgresStore } = await import('../src/store/postgres-store.js');
  const server = await startTestPostgres({ durable: true });
  try {
    const one = server.createDatabase('bench_one');
    const store = await openPostgresStore(one, 'bench');
    let t0 = process.hrtime.bigint();
    const single = await ingestFiles(store, files);
    const singleS = secs(t0);
    await store.close();
    if (single.added !== files.length) throw new Error(`single writer added ${single.added}`);

    const many = server.createDatabase('bench_many');
    // Migrate once before the clock starts (the writers would wait on the lock otherwise).
    await (await openPostgresStore(many, 'bench')).close();
    const lists = Array.from({ length: writers }, (_, w) => {
      const p = join(dir, `list${w}`);
      writeFileSync(p, files.filter((_f, i) => i % writers === w).join('\n'));
      return p;
    });
    t0 = process.hrtime.bigint();
    const outs = await Promise.all(
      lists.map(
        (list) =>
          new Promise<{ added: number; cpuS: number }>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              [
                '--import',
                'tsx',
                new URL('./aggregate-writer.ts', import.meta.url).pathname,
                many,
                list,
              ],
              { stdio: ['ignore', 'pipe', 'inherit'] },
            );
            let out = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.on('exit', (code) =>
              code === 0
                ? resolve(JSON.parse(out) as { added: number; cpuS: number })
                : reject(new Error(`writer exited ${code}`)),
            );
          }),
      ),
    );
    const manyS = secs(t0);
    const added = outs.reduce((n, o) => n + o.added, 0);
    if (added !== files.length) throw new Error(`${writers} writers added ${added}`);
    const check = await openPostgresStore(many, 'bench');
    t0 = process.hrtime.bigint();
    const ranking = await check.rank({ top: 20 });
    const rankS = secs(t0);
    t0 = process.hrtime.bigint();
    await check.rank({ by: 'kernel', top: 20 });
    const rankByS = secs(t0);
    const stored = await check.count();
    await check.close();
    const row = (name: string, value: string, goal: string, ok: boolean): string =>
      `  ${name.padEnd(34)}${value.padStart(16)}   ${goal.padEnd(14)}${ok ? 'ok' : 'MISSED'}`;
    const manyRate = files.length / manyS;
    console.log('');
    console.log(
      `PostgreSQL 15 (throwaway cluster, fsync on, same files): ${stored} bundles stored, ${ranking.groups[0]!.signatures.length} top signatures`,
    );
    console.log(
      row('SQLite ingest, 1 writer', `${Math.round(sqliteRate)} bundles/s`, '(peer)', true),
    );
    console.log(
      row(
        'PostgreSQL ingest, 1 writer',
        `${Math.round(files.length / singleS)} bundles/s`,
        '(peer)',
        true,
      ),
    );
    console.log(
      row(
        `PostgreSQL ingest, ${writers} writers`,
        `${Math.round(manyRate)} bundles/s`,
        `≥ ${GOAL_PG_INGEST_PER_S}/s`,
        manyRate >= GOAL_PG_INGEST_PER_S,
      ),
    );
    console.log(
      row(
        `${writers} writers vs SQLite`,
        `${(manyRate / sqliteRate).toFixed(2)}×`,
        '(ratio)',
        true,
      ),
    );
    console.log(
      `  (${writers} writer processes: wall ${manyS.toFixed(1)} s incl. start-up, CPU ${outs.map((o) => o.cpuS.toFixed(1)).join('+')} s; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`,
    );
    console.log(
      row(
        'PostgreSQL ranking query',
        `${(rankS * 1000).toFixed(0)} ms`,
        `< ${GOAL_RANK_MS} ms`,
        rankS * 1000 < GOAL_RANK_MS,
      ),
    );
    console.log(
      row(
        'PostgreSQL ranking --by kernel',
        `${(rankByS * 1000).toFixed(0)} ms`,
        `< ${GOAL_RANK_MS} ms`,
        rankByS * 1000 < GOAL_RANK_MS,
      ),
    );
    console.log(row('SQLite ranking query', `${sqliteRankMs.toFixed(0)} ms`, '(peer)', true));
  } finally {
    server.destroy();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'xrh-bench-agg-'));
const inbox = join(dir, 'inbox');
try {
  // 1. Generate (1,000 files per folder, like an inbox sharded by day).
  let t0 = process.hrtime.bigint();
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const sub = join(inbox, String(Math.floor(i / 1000)).padStart(3, '0'));
    if (i % 1000 === 0) mkdirSync(sub, { recursive: true });
    const gz = gzipSync(
      JSON.stringify(syntheticBundle(base, i, Math.max(10, Math.floor(count / 20)))),
      { level: 6 },
    );
    bytes += gz.length;
    writeFileSync(join(sub, `b${i}.json.gz`), gz);
  }
  const genS = secs(t0);
  console.log(
    `generated ${count} bundles (${(bytes / 1e6).toFixed(1)} MB gzipped) in ${genS.toFixed(1)} s`,
  );

  const files = listBundleFiles([inbox]);

  // 2. Peer: cat of the same files (page cache warm for both).
  t0 = process.hrtime.bigint();
  const cat = spawnSync('sh', ['-c', `find "${inbox}" -type f -print0 | xargs -0 cat > /dev/null`]);
  if (cat.status !== 0) throw new Error(`cat failed: ${cat.stderr.toString()}`);
  const catS = secs(t0);

  // 3. Ingest through the real path.
  const db = join(dir, 'fleet.db');
  const store = openFleetStore(db);
  t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const report = await ingestFiles(store, files);
  const ingestS = secs(t0);
  const cpu = process.cpuUsage(cpu0);
  // CPU seconds (user + system) the ingest itself used: on a shared, busy machine the wall
  // clock also counts time spent waiting for a core; this does not.
  const ingestCpuS = (cpu.user + cpu.system) / 1e6;
  if (report.added !== count)
    throw new Error(
      `expected ${count} added, got ${JSON.stringify({ ...report, skipped: report.skipped.length })}`,
    );

  // 4. Incremental rerun: nothing changed, nothing re-read.
  t0 = process.hrtime.bigint();
  const rerun = await ingestFiles(store, listBundleFiles([inbox]));
  const rerunS = secs(t0);

  // 5. Ranking queries.
  t0 = process.hrtime.bigint();
  const ranking = store.rank({ top: 20 });
  const rankS = secs(t0);
  t0 = process.hrtime.bigint();
  const byKernel = store.rank({ by: 'kernel', top: 20 });
  const rankByS = secs(t0);
  store.close();
  const rssMb = process.resourceUsage().maxRSS / 1024;
  sqliteRankMs = rankS * 1000;

  const g = ranking.groups[0]!;
  const ingestRate = count / ingestS;
  const catRate = count / catS;
  const row = (name: string, value: string, goal: string, ok: boolean): string =>
    `  ${name.padEnd(34)}${value.padStart(16)}   ${goal.padEnd(14)}${ok ? 'ok' : 'MISSED'}`;
  console.log('');
  console.log(
    `store: ${g.bundles} bundles, ${g.machines} machines, ${g.classes.kernel} kernel-code events, ${g.signatures.length} top signatures`,
  );
  console.log(row('cat of the same files', `${Math.round(catRate)} files/s`, '(peer)', true));
  console.log(
    row(
      'ingest',
      `${Math.round(ingestRate)} bundles/s`,
      `≥ ${GOAL_INGEST_PER_S}/s`,
      ingestRate >= GOAL_INGEST_PER_S,
    ),
  );
  console.log(row('ingest vs cat', `${(ingestRate / catRate).toFixed(3)}×`, '(ratio)', true));
  const cpuRate = count / ingestCpuS;
  console.log(
    row(
      'ingest per CPU-second',
      `${Math.round(cpuRate)} bundles/s`,
      `≥ ${GOAL_INGEST_PER_S}/s`,
      cpuRate >= GOAL_INGEST_PER_S,
    ),
  );
  console.log(
    `  (ingest wall ${ingestS.toFixed(1)} s, CPU ${ingestCpuS.toFixed(1)} s; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`,
  );
  console.log(
    row(
      'incremental rerun (unchanged)',
      `${rerunS.toFixed(2)} s`,
      `${rerun.unchanged} skipped`,
      rerun.added === 0,
    ),
  );
  console.log(
    row(
      'ranking query',
      `${(rankS * 1000).toFixed(0)} ms`,
      `< ${GOAL_RANK_MS} ms`,
      rankS * 1000 < GOAL_RANK_MS,
    ),
  );
  console.log(
    row(
      'ranking query --by kernel',
      `${(rankByS * 1000).toFixed(0)} ms`,
      `< ${GOAL_RANK_MS} ms`,
      rankByS * 1000 < GOAL_RANK_MS,
    ),
  );
  console.log(
    row(
      'peak memory (max RSS)',
      `${rssMb.toFixed(0)} MB`,
      `< ${GOAL_RSS_MB} MB`,
      rssMb < GOAL_RSS_MB,
    ),
  );
  console.log(
    `  (${byKernel.groups.length} kernel groups; synthetic fleet: numbers show scaling only)`,
  );
  if (storeArg === 'postgres') await benchPostgres(files, count / ingestS);
} finally {
  if (keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
