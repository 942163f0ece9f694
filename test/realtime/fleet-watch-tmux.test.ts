// `aggregate --watch DIR --tui` in a real terminal (tmux, 80×24): the board starts empty,
// a bundle dropped into the inbox appears as a ranked row, and `q` stops watching (exit 0).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliCommand, repoRoot } from '../helpers/cli.js';

const skip =
  spawnSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).status === 0
    ? false
    : 'tmux is not installed (apt-get install tmux)';
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-fleet-tmux-'));
// A private tmux server (own socket): never the user's sessions.
const SOCKET = `xrunhunt-fleet-${process.pid}`;

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const sh = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

async function waitForScreen(re: RegExp, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  let last = '';
  while (Date.now() < deadline) {
    last = tmux('capture-pane', '-p', '-t', 'fleet');
    if (re.test(last)) return last;
    await sleep(200);
  }
  assert.fail(`screen never matched ${re} within ${ms} ms; last screen:\n${last}`);
}

after(() => {
  if (!skip) spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  rmSync(work, { recursive: true, force: true });
});

test(
  'aggregate --watch --tui shows bundles as they arrive and quits on q',
  { skip, timeout: 90_000 },
  async () => {
    const inbox = join(work, 'inbox');
    mkdirSync(inbox);
    const exitFile = join(work, 'exit');
    const cli = [
      ...cliCommand(),
      'aggregate',
      '--watch',
      inbox,
      '--tui',
      '--db',
      join(work, 'fleet.db'),
    ];
    tmux(
      'new-session',
      '-d',
      '-s',
      'fleet',
      '-x',
      '80',
      '-y',
      '24',
      `cd ${sh(repoRoot)} && ${cli.map(sh).join(' ')}; echo $? > ${sh(exitFile)}`,
    );
    tmux('set-option', '-t', 'fleet', 'remain-on-exit', 'on');
    await waitForScreen(/xrunhunt fleet watching \S*inbox/, 30_000);
    await waitForScreen(/waiting for bundles/, 10_000);

    // The watcher becomes ready a moment after the board shows; a file dropped before that
    // counts as already there (not reported). So drop the same bundle under new names until
    // it shows: identical content is stored once (content-hash dedup), so counts stay 1.
    const ext4 = join(repoRoot, 'test/fixtures/bundles/session-ext4-writeback.json');
    let screen = '';
    for (let i = 0; i < 6 && !/__filemap_add_folio/.test(screen); i++) {
      copyFileSync(ext4, join(inbox, `a${i}.json`));
      screen = await waitForScreen(/__filemap_add_folio/, 5000).catch(() => '');
    }
    assert.match(screen, /1 +3 +1 +100% .*__filemap_add_folio/);
    assert.match(screen, /fleet: 1 bundles, 1 machines/);
    assert.match(screen, /updated \d\d:\d\d:\d\d · ingested \d+ files?: 1 new/);
    for (const line of screen.trimEnd().split('\n')) assert.ok([...line].length <= 80, line);

    copyFileSync(
      join(repoRoot, 'test/fixtures/bundles/session-lab-test-lockup.json.gz'),
      join(inbox, 'b.json.gz'),
    );
    await waitForScreen(/test_unlock \[test_lockup\]/, 30_000);

    tmux('send-keys', '-t', 'fleet', 'q');
    const deadline = Date.now() + 20_000;
    while (!existsSync(exitFile) && Date.now() < deadline) await sleep(200);
    assert.ok(existsSync(exitFile), 'aggregate exited after q');
    assert.equal(readFileSync(exitFile, 'utf8').trim(), '0');
  },
);
