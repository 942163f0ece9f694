#!/usr/bin/env node
// Runs the test suite in two groups: pure/unit/e2e tests two jobs at a time, then the tests
// that depend on real time (JACK dummy, the lab VM) one file at a time, so that no heavy test
// steals CPU from a paced device. A job is one `node --test` process, timed: each file under
// test/, or one batch of the src/ unit files per parallel job (190 files cost 62 s as one
// process, 280 s as 190 processes, each paying tsx's start). Every run ends with each
// group's wall time and the slowest jobs: growth is seen the day it happens. When dist/ is as
// new as src/ (`npm test` and `npm run test:quick` build first), the CLI the tests spawn is
// the built one (XRUNHUNT_TEST_DIST=1: 0.15 s a start against tsx's 0.45 s).
//   node --import tsx scripts/run-tests.mjs                 every file (what `npm test` and .ci/run run)
//   node --import tsx scripts/run-tests.mjs --quick         every file that needs no guest and no real-time
//                                              server (`npm run test:quick`, the inner loop)
//   node --import tsx scripts/run-tests.mjs --group serial  one group only
//   node --import tsx scripts/run-tests.mjs --jobs 3        three jobs at once in the parallel group
//   node --import tsx scripts/run-tests.mjs src/proc lab-cli  only files whose path contains a word
// Node 20 does not expand globs, so this script lists files. It runs under tsx
// (`node --import tsx scripts/run-tests.mjs`) to share src/lab/dist-freshness.ts.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// The same freshness rule the lab uses for the guest's CLI, from its TypeScript source: started
// without tsx, the script starts itself again under it.
let distIsCurrent;
try {
  ({ distIsCurrent } = await import('../src/lab/dist-freshness.ts'));
} catch (err) {
  if (err?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
  const again = spawnSync(process.execPath, ['--import', 'tsx', ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(again.status ?? 1);
}
// Files that boot a lab guest or need the JACK dummy server: the part `--quick` leaves out.
const GUEST_OR_REALTIME_DIRS = ['test/realtime', 'test/lab'];
// Files in those folders that boot nothing and start no server (CLI refusals before boot,
// parsing of a captured lab log): they run in the parallel group and in `--quick`.
const BOOT_FREE_FILES = ['test/lab/lab-cli.test.ts', 'test/lab/wakeup-records.test.ts'];
// Files whose runs take the machine's own settings lock (a session or `debug` on the real /proc,
// src/proc/settings-lock.ts): two of them at once would see each other as "another xrunhunt"
// and one would be refused, as a user's second run is. They share one lane of the parallel
// group (never two at once, each beside other files). Every other test uses a fake
// --proc-root, whose lock is its own.
const MACHINE_LOCK_FILES = [
  'test/e2e/debug.test.ts',
  'test/e2e/html-report.test.ts',
  'test/e2e/kprobe.test.ts',
  'test/e2e/session-bundle.test.ts',
  'test/tui/plain-fallback.test.ts',
];
// Files that stop and start services or spawn many CLIs under timing: alone, so load from
// the parallel files cannot make them flaky.
const LOAD_SENSITIVE_FILES = ['test/store/postgres-receivers.test.ts', 'test/e2e/web.test.ts'];
// Each job's last wall time, so the next run starts the longest first (two workers finish
// together instead of one waiting on a long file picked last), and the batch entry files.
// Outside the repo's files.
const CACHE_DIR = join(root, 'node_modules', '.cache', 'xrunhunt-tests');
const TIMES_FILE = join(CACHE_DIR, 'file-times.json');
// Unit files that run together in one process per batch: src/ (pure cores and their shells,
// no file needs its own process; they passed 1034 of 1034 together).
const BATCH_DIR = 'src/';

function walk(dir) {
  let out = [];
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name === 'fixtures' || name === 'helpers') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(walk(p));
    else if (/\.test\.tsx?$/.test(name)) out.push(relative(root, p));
  }
  return out;
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const valueOf = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const onlyGroup = valueOf('--group');
// Jobs at once in the parallel group (default 2, the cores these machines have).
const jobs = Number(valueOf('--jobs') ?? 2);
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`--jobs must be a whole number of at least 1, found "${valueOf('--jobs')}"`);
  process.exit(1);
}
const filters = args.filter(
  (a, i) => !a.startsWith('--') && args[i - 1] !== '--group' && args[i - 1] !== '--jobs',
);
const needsGuestOrRealtime = (f) =>
  !BOOT_FREE_FILES.includes(f) && GUEST_OR_REALTIME_DIRS.some((d) => f.startsWith(d + '/'));
const all = [...walk(join(root, 'src')), ...walk(join(root, 'test'))]
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .filter((f) => !quick || !needsGuestOrRealtime(f))
  .sort();
const isSerial = (f) => LOAD_SENSITIVE_FILES.includes(f) || needsGuestOrRealtime(f);

let lastTimes = {};
try {
  lastTimes = JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
} catch {
  // first run on this checkout: alphabetical order
}

const useDist = process.env['XRUNHUNT_TEST_DIST'] !== '0' && distIsCurrent(root);
const childEnv = { ...process.env, XRUNHUNT_TEST_DIST: useDist ? '1' : '0' };

// A job: { name, files, lane? }. The src/ unit files go into one batch per parallel job, balanced by their
// last times (each batch is one process importing its files in order); every other file is
// its own job. Jobs with a lane never run two at once.
function batchJobs(files) {
  const batches = Array.from({ length: Math.min(jobs, files.length) }, (_, i) => ({
    name: `${BATCH_DIR} unit batch ${i + 1}`,
    files: [],
    load: 0,
  }));
  for (const f of [...files].sort((a, b) => (lastTimes[b] ?? 1) - (lastTimes[a] ?? 1))) {
    const b = batches.reduce((x, y) => (y.load < x.load ? y : x));
    b.files.push(f);
    // Each file also pays its imports and tsx compile, which its tests' durations leave out.
    b.load += (lastTimes[f] ?? 1) + 0.1;
  }
  return batches.map(({ name, files: fs }) => ({ name, files: fs.sort() }));
}
const fileJob = (f) => ({
  name: f,
  files: [f],
  lane: MACHINE_LOCK_FILES.includes(f) ? 'machine-lock' : undefined,
});
const jobTime = (j) => (j.files.length === 1 ? lastTimes[j.files[0]] : lastTimes[j.name]) ?? 0;
// Longest first for the pooled group; the serial group keeps its order (alphabetical), which is
// also how its logs are read.
const longestFirst = (jobs) =>
  [...jobs].sort((a, b) => jobTime(b) - jobTime(a) || a.name.localeCompare(b.name));
const pooled = all.filter((f) => !isSerial(f));
const groups = [
  {
    name: 'parallel',
    jobs: longestFirst([
      ...batchJobs(pooled.filter((f) => f.startsWith(BATCH_DIR))),
      ...pooled.filter((f) => !f.startsWith(BATCH_DIR)).map(fileJob),
    ]),
    concurrency: jobs,
  },
  { name: 'serial', jobs: all.filter(isSerial).map(fileJob), concurrency: 1 },
].filter((g) => !onlyGroup || g.name === onlyGroup);

// The entry module of a batch: imports each file in turn (node:test runs their top-level tests
// in this one process, in order).
function batchEntry(job, index) {
  mkdirSync(CACHE_DIR, { recursive: true });
  const entry = join(CACHE_DIR, `batch-${index}.test.mjs`);
  const lines = job.files.map(
    (f) => `await import(${JSON.stringify(pathToFileURL(join(root, f)).href)});`,
  );
  writeFileSync(entry, `// ${job.name}: generated by scripts/run-tests.mjs\n${lines.join('\n')}\n`);
  return entry;
}

// One job, one `node --test` process. Its spec output is streamed when it runs alone and held
// until it ends when it shares the machine, so two jobs' lines never interleave.
function runJob(job, index, stream) {
  return new Promise((resolve) => {
    const started = Date.now();
    const isBatch = !(job.files.length === 1 && job.name === job.files[0]);
    const target = isBatch ? batchEntry(job, index) : job.files[0];
    // A batch also writes each top-level test's file and duration (file-times-reporter.mjs):
    // summed per file, they balance the next run's batches by time.
    const fileTimes = isBatch ? join(CACHE_DIR, `batch-${index}.times.ndjson`) : null;
    const reporters = fileTimes
      ? [
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          `--test-reporter=${pathToFileURL(join(root, 'scripts', 'file-times-reporter.mjs')).href}`,
          `--test-reporter-destination=${fileTimes}`,
        ]
      : ['--test-reporter=spec'];
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', ...reporters, target], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv,
    });
    const held = [];
    const out = (d) => (stream ? process.stdout.write(d) : held.push(d));
    // The reporter's `ℹ pass N` lines, read as they stream: after a failure the spec reporter
    // prints the failing tests (with their stacks) after them, so no tail of the output holds
    // them for sure (a failed serial group once summed as 0 passed, 0 failed).
    const counts = { pass: 0, fail: 0, skipped: 0 };
    let partial = '';
    child.stdout.on('data', (d) => {
      out(d);
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^ℹ (pass|fail|cancelled|skipped) (\d+)$/.exec(line);
        if (m) counts[m[1] === 'cancelled' ? 'fail' : m[1]] += Number(m[2]);
      }
    });
    child.stderr.on('data', (d) => (stream ? process.stderr.write(d) : held.push(d)));
    child.on('close', (code) => {
      const seconds = (Date.now() - started) / 1000;
      const cpuNow = reapedChildrenCpuSeconds();
      const cpu = cpuNow !== null && reapedCpu !== null ? cpuNow - reapedCpu : null;
      reapedCpu = cpuNow;
      const files = job.files.length > 1 ? ` (${job.files.length} files)` : '';
      if (!stream)
        process.stdout.write(`\n## ${job.name}${files}\n${Buffer.concat(held).toString()}`);
      // A job that died before its runner printed a summary still counts as failed.
      if ((code ?? 1) !== 0 && counts.fail === 0) counts.fail = 1;
      const cpuText = cpu === null ? '' : `, ${cpu.toFixed(1)} s CPU`;
      process.stdout.write(`## ${job.name}: ${seconds.toFixed(1)} s${cpuText}, exit ${code}\n`);
      resolve({
        name: job.name,
        seconds,
        cpu,
        code: code ?? 1,
        ...counts,
        fileSeconds: fileTimes ? readFileTimes(fileTimes) : {},
      });
    });
  });
}

// Seconds per file (repo-relative) from a batch's file-times lines; {} when there are none.
function readFileTimes(path) {
  const out = {};
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const { file, ms } = JSON.parse(line);
      if (typeof file !== 'string' || typeof ms !== 'number') continue;
      const f = relative(root, file.startsWith('file:') ? new URL(file).pathname : file);
      out[f] = (out[f] ?? 0) + ms / 1000;
    } catch {
      // a line cut off by a killed job
    }
  }
  return out;
}

// CPU seconds of this runner's reaped children (and what they reaped in turn): /proc/self/stat's
// cutime + cstime. Read when a job's process ends, the step is that job's CPU, its spawned CLIs
// included; it says whether a slow job computes or waits. null off Linux.
function reapedChildrenCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}
let reapedCpu = reapedChildrenCpuSeconds();

let batchIndex = 0;
async function runGroup(group) {
  const started = Date.now();
  process.stdout.write(`\n# ${group.name} group: ${group.jobs.length} jobs\n`);
  const queue = [...group.jobs];
  const busyLanes = new Set();
  const results = [];
  let wake = () => undefined;
  // Takes the first job whose lane is free; waits for a job to end when every left one is
  // held back by its lane.
  const next = async () => {
    for (;;) {
      const i = queue.findIndex((j) => j.lane === undefined || !busyLanes.has(j.lane));
      if (i >= 0) return queue.splice(i, 1)[0];
      if (queue.length === 0) return undefined;
      await new Promise((r) => (wake = r));
    }
  };
  const worker = async () => {
    for (let j = await next(); j !== undefined; j = await next()) {
      if (j.lane) busyLanes.add(j.lane);
      results.push(await runJob(j, batchIndex++, group.concurrency === 1));
      if (j.lane) busyLanes.delete(j.lane);
      wake();
    }
  };
  await Promise.all(Array.from({ length: Math.min(group.concurrency, queue.length) }, worker));
  return { name: group.name, seconds: (Date.now() - started) / 1000, results };
}

const runStarted = Date.now();
console.log(
  useDist
    ? '# CLI under test: dist/ (as new as src/)'
    : '# CLI under test: src/ through tsx (dist/ is older than src/ or missing; npm run build to test the built one)',
);
const done = [];
for (const g of groups) done.push(await runGroup(g));
const results = done.flatMap((g) => g.results);
const sum = (k) => results.reduce((a, r) => a + r[k], 0);

const times = { ...lastTimes };
for (const r of results) {
  times[r.name] = r.seconds;
  Object.assign(times, r.fileSeconds);
}
try {
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(TIMES_FILE, JSON.stringify(times, null, 1));
} catch {
  // a read-only checkout: the next run is alphabetical again
}

// Whole seconds first, so 119.7 s reads "2 min 0 s", not "1 min 60 s".
const fmt = (s) =>
  s >= 59.95
    ? `${Math.floor(Math.round(s) / 60)} min ${Math.round(s) % 60} s`
    : `${s.toFixed(1)} s`;
console.log('\n# wall time by group');
for (const g of done)
  console.log(`  ${g.name.padEnd(9)} ${fmt(g.seconds).padStart(12)}  (${g.results.length} jobs)`);
console.log(`  ${'all'.padEnd(9)} ${fmt((Date.now() - runStarted) / 1000).padStart(12)}`);
console.log('# slowest jobs (wall, CPU)');
const cpuOf = (r) => (r.cpu === null ? '' : `${fmt(r.cpu)} CPU`);
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 5))
  console.log(`  ${fmt(r.seconds).padStart(12)}  ${cpuOf(r).padStart(14)}  ${r.name}`);
if (results.some((r) => r.cpu !== null)) {
  console.log('# most CPU (wall, CPU)');
  for (const r of [...results].sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0)).slice(0, 5))
    console.log(`  ${fmt(r.seconds).padStart(12)}  ${cpuOf(r).padStart(14)}  ${r.name}`);
  console.log(`  CPU of all jobs: ${fmt(sum('cpu'))}`);
}
const failed = results.filter((r) => r.code !== 0);
if (failed.length > 0) console.log(`# failed jobs\n${failed.map((r) => `  ${r.name}`).join('\n')}`);
console.log(`\ntests: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped`);
process.exit(failed.length > 0 ? 1 : 0);
