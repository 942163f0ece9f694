// `xrunhunt try` end to end: the real CLI, real libasound on the `null` PCM (no pacing, so no
// xruns: only what is deterministic is asserted — the rounds ran, the knob was set in B and
// restored, the journal is gone, the try bundle validates) over a fake /proc + /sys tree, and
// the refusals of bad input before anything changes.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readBundle } from '../../src/bundle/read.js';
import { runCli } from '../helpers/cli.js';
import { createTryKnobTree, tryRootArgs } from '../helpers/try-knob-tree.js';

const tree = createTryKnobTree();
const state = mkdtempSync(join(tmpdir(), 'xrunhunt-try-state-'));
after(() => {
  tree.cleanup();
  rmSync(state, { recursive: true, force: true });
});
const roots = tryRootArgs(tree);

/** A `try` on the null device with no kernel capture and no real-time rights (fast, unprivileged). */
const nullTry = (
  knobs: string[],
  phases: string,
  rounds: number,
  extra: string[] = [],
): string[] => [
  'try',
  ...knobs,
  '--device',
  'null',
  '--phases',
  phases,
  '--rounds',
  String(rounds),
  '--capture',
  'none',
  '--rt-priority',
  '0',
  ...extra,
  ...roots,
];
const env = { XDG_STATE_HOME: state };

test('try on null: two A/B rounds, the knob restored, --json and a try bundle', async () => {
  const out = join(state, 'bundle');
  const r = await runCli(
    nullTry(['vm.swappiness=10', 'thp=never'], 'idle:300ms', 2, ['--out', out, '--json']),
    { env, timeoutMs: 120_000 },
  );
  assert.equal(r.code, 2, r.stderr);
  const j = JSON.parse(r.stdout) as {
    rounds: number;
    sessions: { round: number; arm: string }[];
    knobs: { spec: string; from: string; to: string }[];
    total: { a: { count: number }; b: { count: number }; ratio: number | null };
    verdict: string;
  };
  assert.equal(j.rounds, 2);
  assert.deepEqual(
    j.sessions.map((s) => `${s.round}${s.arm}`),
    ['1A', '1B', '2A', '2B'],
  );
  assert.deepEqual(
    j.knobs.map((k) => [k.spec, k.from, k.to]),
    [
      ['vm.swappiness=10', '60', '10'],
      ['thp=never', 'madvise', 'never'],
    ],
  );
  assert.equal(j.total.ratio, null);
  assert.match(j.verdict, /Nothing to compare: no xruns with either setting/);
  assert.equal(tree.readProc('sys/vm/swappiness').trim(), '60');
  assert.match(
    readFileSync(join(tree.sysRoot, 'kernel/mm/transparent_hugepage/enabled'), 'utf8'),
    /madvise/,
  );
  assert.deepEqual(
    readdirSync(join(state, 'xrunhunt')).filter((f) => f.endsWith('.json')),
    [],
    'no journal left',
  );
  const b = await readBundle(join(out, 'bundle.json.gz'));
  assert.equal(b.kind, 'try');
  assert.equal(b.try?.rounds, 2);
  assert.deepEqual(
    b.phases.map((p) => p.name),
    ['A idle', 'B idle'],
  );
  assert.match(readFileSync(join(out, 'report.txt'), 'utf8'), /ratio B\/A/);

  // compare reads try bundles: the knobs, rounds and verdict of each side.
  const c = await runCli(['compare', out, out, '--json'], { env });
  assert.equal(c.code, 0, c.stderr);
  const cj = JSON.parse(c.stdout) as { tries: { side: string; knobs: string[]; rounds: number }[] };
  assert.deepEqual(
    cj.tries.map((t) => [t.side, t.knobs.join(' '), t.rounds]),
    [
      ['A', 'vm.swappiness=10 thp=never', 2],
      ['B', 'vm.swappiness=10 thp=never', 2],
    ],
  );
  const ct = await runCli(['compare', out, out], { env });
  assert.match(ct.stdout, /Try runs[\s\S]*A: vm\.swappiness=10 thp=never, 2 rounds: ratio n\/a/);
});

test('try refuses bad knobs before anything runs', async () => {
  const cases: [string[], RegExp][] = [
    [[], /try needs at least one KNOB=VALUE/],
    [['vm.overcommit=1'], /unknown knob "vm.overcommit"/],
    [['threadirqs'], /threadirqs needs a reboot[\s\S]*add threadirqs to the kernel command line/],
    [['scheduler.sda=cfq'], /this kernel offers mq-deadline, kyber, bfq, none/],
    [['vm.swappiness=10', '--rounds', '0'], /invalid --rounds/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(['try', ...args, '--device', 'null', ...roots], { env });
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
  }
  assert.equal(tree.readProc('sys/vm/swappiness').trim(), '60');
});

test('kill -9 during a B round of the CLI: the next run restores the knob first', async () => {
  const { spawn } = await import('node:child_process');
  const { cliCommand } = await import('../helpers/cli.js');
  const [cmd, ...pre] = cliCommand();
  const child = spawn(
    cmd!,
    [...pre, ...nullTry(['vm.swappiness=5'], 'idle:2s', 1, ['--duration', '60s'])],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // B plays 2 s on null; poll the fake file and kill the moment it shows the change.
  const deadline = Date.now() + 60_000;
  let seen = false;
  while (Date.now() < deadline && child.exitCode === null) {
    if (tree.readProc('sys/vm/swappiness').trim() === '5') {
      child.kill('SIGKILL');
      seen = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => (child.exitCode !== null ? r(null) : child.on('exit', r)));
  assert.ok(seen, 'the B round set the knob within 60 s');
  const left = readdirSync(join(state, 'xrunhunt')).filter((f) => /-try\.json$/.test(f));
  assert.equal(left.length, 1, 'the killed run left its try journal');
  assert.equal(tree.readProc('sys/vm/swappiness').trim(), '5');
  const next = await runCli(
    ['debug', 'restore', '--proc-root', tree.procRoot, '--sys-root', tree.sysRoot],
    { env },
  );
  assert.equal(next.code, 0, next.stderr);
  assert.equal(tree.readProc('sys/vm/swappiness').trim(), '60');
  assert.deepEqual(
    readdirSync(join(state, 'xrunhunt')).filter((f) => /-try\.json$/.test(f)),
    [],
  );
});

// Issue 30 item 6, for try: --out a folder that already holds a bundle adds a subfolder.
test('try --out a folder that holds files leaves them and writes a new xrunhunt-try-… subfolder', async () => {
  const out = join(state, 'bundle');
  const before = readFileSync(join(out, 'report.txt'), 'utf8');
  const r = await runCli(nullTry(['vm.swappiness=10'], 'idle:200ms', 1, ['--out', out]), {
    env,
    timeoutMs: 120_000,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(readFileSync(join(out, 'report.txt'), 'utf8'), before);
  const subs = readdirSync(out).filter((n) => n.startsWith('xrunhunt-try-'));
  assert.equal(subs.length, 1);
  assert.equal((await readBundle(join(out, subs[0]!, 'bundle.json.gz'))).try?.rounds, 1);
  assert.match(r.stderr, /already holds files/);
});
