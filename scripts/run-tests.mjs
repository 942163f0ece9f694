#!/usr/bin/env node
// Runs the test suite in two groups: pure/unit/e2e tests two files at a time, then the tests
// that depend on real time (JACK dummy, the lab VM) one file at a time, so that no heavy test
// steals CPU from a paced device. Each file is its own `node --test` run, timed, so every run
// ends with each group's wall time and the slowest files: growth is seen the day it happens.
//   node scripts/run-tests.mjs                 every file (what `npm test` and .ci/run run)
//   node scripts/run-tests.mjs --quick         every file that needs no guest and no real-time
//                                              server (`npm run test:quick`, the inner loop)
//   node scripts/run-tests.mjs --group serial  one group only
//   node scripts/run-tests.mjs src/proc lab-cli  only files whose path contains a word
// Node 20 does not expand globs, so this script lists files.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// Files that boot a lab guest or need the JACK dummy server: the part `--quick` leaves out.
const GUEST_OR_REALTIME_DIRS = ['test/realtime', 'test/lab'];
// Files in those folders that boot nothing and start no server (CLI refusals before boot,
// parsing of a captured lab log): they run in the parallel group and in `--quick`.
const BOOT_FREE_FILES = ['test/lab/lab-cli.test.ts', 'test/lab/wakeup-records.test.ts'];
// Files whose runs take the machine's own settings lock (a session or `debug` on the real /proc,
// src/proc/settings-lock.ts): two of them at once would see each other as "another xrunhunt"
// and one would be refused, as a user's second run is. They run one at a time, before the
// real-time files. Every other test uses a fake --proc-root, whose lock is its own.
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
// Each file's last wall time, so the next run starts the longest first (two workers finish
// together instead of one waiting on a long file picked last). Outside the repo's files.
const TIMES_FILE = join(root, 'node_modules', '.cache', 'xrunhunt-tests', 'file-times.json');

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
const onlyGroup = args.includes('--group') ? args[args.indexOf('--group') + 1] : undefined;
const filters = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--group');
const needsGuestOrRealtime = (f) =>
  !BOOT_FREE_FILES.includes(f) && GUEST_OR_REALTIME_DIRS.some((d) => f.startsWith(d + '/'));
const all = [...walk(join(root, 'src')), ...walk(join(root, 'test'))]
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .filter((f) => !quick || !needsGuestOrRealtime(f))
  .sort();
const isSerial = (f) =>
  MACHINE_LOCK_FILES.includes(f) || LOAD_SENSITIVE_FILES.includes(f) || needsGuestOrRealtime(f);

let lastTimes = {};
try {
  lastTimes = JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
} catch {
  // first run on this checkout: alphabetical order
}
// Longest first for the pooled group; the serial group keeps its order (machine-lock files,
// then the real-time and lab files, alphabetically), which is also how its logs are read.
const longestFirst = (files) =>
  [...files].sort((a, b) => (lastTimes[b] ?? 0) - (lastTimes[a] ?? 0) || a.localeCompare(b));
const groups = [
  { name: 'parallel', files: longestFirst(all.filter((f) => !isSerial(f))), concurrency: 2 },
  { name: 'serial', files: all.filter(isSerial), concurrency: 1 },
].filter((g) => !onlyGroup || g.name === onlyGroup);

// One file, one `node --test` process. Its spec output is streamed when it runs alone and held
// until it ends when it shares the machine, so two files' lines never interleave.
function runFile(file, stream) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=spec', file],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
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
      if (!stream) process.stdout.write(`\n## ${file}\n${Buffer.concat(held).toString()}`);
      // A file that died before its runner printed a summary still counts as failed.
      if ((code ?? 1) !== 0 && counts.fail === 0) counts.fail = 1;
      process.stdout.write(`## ${file}: ${seconds.toFixed(1)} s, exit ${code}\n`);
      resolve({ file, seconds, code: code ?? 1, ...counts });
    });
  });
}

async function runGroup(group) {
  const started = Date.now();
  process.stdout.write(`\n# ${group.name} group: ${group.files.length} files\n`);
  const queue = [...group.files];
  const results = [];
  const worker = async () => {
    for (let f = queue.shift(); f !== undefined; f = queue.shift())
      results.push(await runFile(f, group.concurrency === 1));
  };
  await Promise.all(Array.from({ length: Math.min(group.concurrency, queue.length) }, worker));
  return { name: group.name, seconds: (Date.now() - started) / 1000, results };
}

const runStarted = Date.now();
const done = [];
for (const g of groups) done.push(await runGroup(g));
const results = done.flatMap((g) => g.results);
const sum = (k) => results.reduce((a, r) => a + r[k], 0);

const times = { ...lastTimes };
for (const r of results) times[r.file] = r.seconds;
try {
  mkdirSync(dirname(TIMES_FILE), { recursive: true });
  writeFileSync(TIMES_FILE, JSON.stringify(times, null, 1));
} catch {
  // a read-only checkout: the next run is alphabetical again
}

const fmt = (s) => (s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${s.toFixed(1)} s`);
console.log('\n# wall time by group');
for (const g of done) console.log(`  ${g.name.padEnd(9)} ${fmt(g.seconds).padStart(12)}  (${g.results.length} files)`);
console.log(`  ${'all'.padEnd(9)} ${fmt((Date.now() - runStarted) / 1000).padStart(12)}`);
console.log('# slowest files');
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 5))
  console.log(`  ${fmt(r.seconds).padStart(12)}  ${r.file}`);
const failed = results.filter((r) => r.code !== 0);
if (failed.length > 0) console.log(`# failed files\n${failed.map((r) => `  ${r.file}`).join('\n')}`);
console.log(`\ntests: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped`);
process.exit(failed.length > 0 ? 1 : 0);
