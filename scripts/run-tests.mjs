#!/usr/bin/env node
// Runs the test suite in two groups: pure/unit/e2e tests in parallel, then the tests that
// depend on real time (JACK dummy, the lab VM) one file at a time, so that no heavy test
// steals CPU from a paced device. Node 20 does not expand globs, so this script lists files.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const SERIAL_DIRS = ['test/realtime', 'test/lab'];
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
const onlyGroup = args.includes('--group') ? args[args.indexOf('--group') + 1] : undefined;
const filters = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--group');
const all = [...walk(join(root, 'src')), ...walk(join(root, 'test'))]
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
// Files that stop and start services or spawn many CLIs under timing: alone, so load from
// the parallel files cannot make them flaky.
const LOAD_SENSITIVE_FILES = ['test/store/postgres-receivers.test.ts', 'test/e2e/web.test.ts'];
const isSerial = (f) =>
  MACHINE_LOCK_FILES.includes(f) ||
  LOAD_SENSITIVE_FILES.includes(f) ||
  SERIAL_DIRS.some((d) => f.startsWith(d + '/'));
const groups = [
  { name: 'parallel', files: all.filter((f) => !isSerial(f)), concurrency: 2 },
  { name: 'serial', files: all.filter(isSerial), concurrency: 1 },
].filter((g) => !onlyGroup || g.name === onlyGroup);

function run(group) {
  return new Promise((resolve) => {
    if (group.files.length === 0) return resolve({ pass: 0, fail: 0, skipped: 0, code: 0 });
    process.stdout.write(`\n# ${group.name} group: ${group.files.length} files\n`);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        `--test-concurrency=${group.concurrency}`,
        '--test-reporter=spec',
        ...group.files,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // The reporter's `ℹ pass N` lines, read as they stream: after a failure the spec reporter
    // prints the failing tests (with their stacks) after them, so no tail of the output holds
    // them for sure (a failed serial group once summed as 0 passed, 0 failed).
    const counts = { pass: 0, fail: 0, skipped: 0 };
    let partial = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^ℹ (pass|fail|skipped) (\d+)$/.exec(line);
        if (m) counts[m[1]] = Number(m[2]);
      }
    });
    child.on('close', (code) => {
      resolve({ ...counts, code: code ?? 1 });
    });
  });
}

let pass = 0,
  fail = 0,
  skipped = 0,
  code = 0;
for (const g of groups) {
  const r = await run(g);
  pass += r.pass;
  fail += r.fail;
  skipped += r.skipped;
  if (r.code !== 0) code = r.code;
}
console.log(`\ntests: ${pass} passed, ${fail} failed, ${skipped} skipped`);
process.exit(code);
