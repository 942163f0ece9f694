// `session --tui` as a person runs it: in a real terminal (tmux, 80×24) on the JACK dummy
// backend with injected stalls. The xrun counter on screen must move, `q` must end the
// session (exit 2: it had xruns), and nothing the session started may outlive it: no load
// process, no playback worker, no jackd this test started.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliCommand, repoRoot } from '../helpers/cli.js';
import { ensureJack, jackMissingReason, jackRunning, type JackServer } from '../helpers/jack.js';

const tmuxMissing =
  spawnSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).status === 0
    ? null
    : 'tmux is not installed (apt-get install tmux)';
const skip = jackMissingReason() ?? tmuxMissing ?? false;

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-tui-jack-'));
// A private tmux server (own socket), so the test never touches a user's tmux sessions.
const SOCKET = `xrunhunt-tui-${process.pid}`;
let jack: JackServer | null = null;

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const screen = () => tmux('capture-pane', '-p', '-t', 'tui');

/** Single-quotes a word for sh. */
const sh = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

/** pid → parent pid for every process (from /proc). */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // Field 4 of stat, after the parenthesised command (which may contain spaces).
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      map.set(Number(d), ppid);
    } catch {
      // The process ended while we looked.
    }
  }
  return map;
}

/** All descendants of `root` right now. */
function descendants(root: number): number[] {
  const map = parents();
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [pid, pp] of map) {
      if (pp === p) {
        out.push(pid);
        walk(pid);
      }
    }
  };
  walk(root);
  return out;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`);

/** Polls the screen until `re` matches; returns the match. Fails after `ms`. */
async function waitForScreen(re: RegExp, ms: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  let last = '';
  while (Date.now() < deadline) {
    last = screen();
    const m = re.exec(last);
    if (m) return m;
    await sleep(200);
  }
  assert.fail(`screen never matched ${re} within ${ms} ms; last screen:\n${last}`);
}

before(async () => {
  if (skip) return;
  jack = await ensureJack();
});

after(async () => {
  if (!skip) spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  const startedHere = jack?.startedHere ?? false;
  await jack?.stop();
  if (startedHere) assert.equal(jackRunning(), false, 'the jackd this test started is gone');
  rmSync(work, { recursive: true, force: true });
});

test(
  'session --tui on plug:jack: the counter moves, q ends it cleanly, nothing is left running',
  { skip, timeout: 120_000 },
  async () => {
    const exitFile = join(work, 'exit');
    // 30 ms stalls against a 10.7 ms buffer (256 × 2 at 48 kHz): each stall is an underrun
    // (see session-jack.test.ts). A cpu phase after idle, so there are load processes to reap.
    const cli = [
      ...cliCommand(),
      'session',
      '--tui',
      '--device',
      'plug:jack',
      '--period',
      '256',
      '--periods',
      '2',
      '--phases',
      'idle:4s,cpu:60s',
      '--inject-stall',
      '30x8',
      '--out',
      join(work, 'out'),
    ];
    const command = `cd ${sh(repoRoot)} && XDG_STATE_HOME=${sh(join(work, 'state'))} ${cli.map(sh).join(' ')}; echo $? > ${sh(exitFile)}`;
    tmux('new-session', '-d', '-s', 'tui', '-x', '80', '-y', '24', command);
    // Keep the last screen readable after the CLI exits.
    tmux('set-option', '-t', 'tui', 'remain-on-exit', 'on');
    const shellPid = Number(tmux('list-panes', '-t', 'tui', '-F', '#{pane_pid}').trim());
    assert.ok(shellPid > 0);

    // The dashboard is up and counting.
    const first = await waitForScreen(/│ ([1-9]\d*) xruns ·/, 40_000);
    const n1 = Number(first[1]);
    let moved = n1;
    for (const until = Date.now() + 30_000; moved <= n1 && Date.now() < until;) {
      await sleep(200);
      moved = Number(/│ (\d+) xruns ·/.exec(screen())?.[1] ?? n1);
    }
    assert.ok(moved > n1, `the xrun counter moved from ${n1} (still ${moved})`);

    // The cpu phase runs: its load processes exist (descendants beyond the CLI itself).
    await waitForScreen(/2\/2 cpu/, 30_000);
    const screenNow = screen();
    assert.ok(screenNow.trimEnd().split('\n').length <= 24, 'fits 24 rows');
    for (const line of screenNow.split('\n'))
      assert.ok([...line].length <= 80, `fits 80 columns: ${line}`);
    // The CLI and the cpu load's worker processes (the playback worker is a thread of the CLI).
    // Workers are forked a moment after the phase starts: wait for them (up to 15 s).
    let running = descendants(shellPid);
    for (const until = Date.now() + 15_000; running.length < 2 && Date.now() < until;) {
      await sleep(200);
      running = descendants(shellPid);
    }
    assert.ok(
      running.length >= 2,
      `the CLI and its load workers run (${running.length} processes)`,
    );

    tmux('send-keys', '-t', 'tui', 'q');
    await waitForScreen(/stopping|ended/, 10_000);
    const deadline = Date.now() + 30_000;
    while (!existsSync(exitFile) && Date.now() < deadline) await sleep(200);
    assert.ok(existsSync(exitFile), `the session exited after q; screen:\n${screen()}`);
    assert.equal(readFileSync(exitFile, 'utf8').trim(), '2', 'exit 2: xruns were found');
    // The dashboard's last frame, then the text report below it (in the scrollback).
    const all = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'tui');
    assert.match(all, /xrunhunt ended/);
    assert.match(all, /bundle folder: /);
    assert.ok(
      all.indexOf('xrunhunt ended') < all.lastIndexOf('bundle folder: '),
      'report below the frame',
    );

    // Nothing the session started outlives it (load workers, the CLI, any helper).
    // A worker that got its stop signal may take a moment to exit: allow 3 s, then name
    // whatever is left.
    let left = running.filter(alive);
    for (const until = Date.now() + 3000; left.length > 0 && Date.now() < until;) {
      await sleep(100);
      left = left.filter(alive);
    }
    const what = left.map((pid) => {
      try {
        return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 200)}`;
      } catch {
        return `${pid}: (gone)`;
      }
    });
    assert.deepEqual(what, [], 'processes left running');
  },
);
