// `aggregate --watch` end to end: a real chokidar watcher on a real inbox, the real CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  appendFileSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliCommand, repoRoot } from '../helpers/cli.js';

const FIX = join(repoRoot, 'test/fixtures/bundles');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Rec = {
  type: string;
  added?: number;
  skipped?: { file: string; reason: string; quarantinedTo?: string }[];
  ranking?: { groups: { bundles: number }[] };
};

test('watch: a partial file is read only when complete, write-then-rename works, bad files go to quarantine, SIGTERM stops it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-watch-'));
  const inbox = join(dir, 'inbox');
  mkdirSync(inbox);
  copyFileSync(join(FIX, 'session-lab-test-lockup.json.gz'), join(inbox, 'first.json.gz'));
  // Content that was in the inbox well before the watcher started (a file modified within the
  // last second may still be being copied: that one is left to the watcher's catch-up).
  const earlier = new Date(Date.now() - 60_000);
  utimesSync(join(inbox, 'first.json.gz'), earlier, earlier);
  const [cmd, ...pre] = cliCommand();
  const child = spawn(
    cmd!,
    [...pre, 'aggregate', '--watch', inbox, '--db', join(dir, 'f.db'), '--json'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const records: Rec[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    records.push(JSON.parse(line) as Rec);
    waiters.splice(0).forEach((w) => w());
  });
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const waitFor = async (pred: (r: Rec[]) => boolean, what: string, ms = 20_000): Promise<void> => {
    const end = Date.now() + ms;
    while (!pred(records)) {
      if (Date.now() > end)
        assert.fail(
          `timed out waiting for ${what}; records: ${JSON.stringify(records)}; stderr: ${stderr}`,
        );
      await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(200)]);
    }
  };
  try {
    await waitFor((r) => r.some((x) => x.type === 'ranking'), 'the initial ranking');
    assert.equal(
      records[0]!.ranking!.groups[0]!.bundles,
      1,
      'existing inbox content ingested first',
    );
    await sleep(300); // watcher ready (the ranking is printed before watching starts)

    // 1. A partial file under its final name, completed 600 ms later (a slow copy).
    const text = readFileSync(join(FIX, 'session-ext4-writeback.json'), 'utf8');
    const partial = join(inbox, 'slow-copy.json');
    writeFileSync(partial, text.slice(0, 2000));
    await sleep(600);
    appendFileSync(partial, text.slice(2000));
    await waitFor(
      (r) => r.filter((x) => x.type === 'ingest').length >= 1,
      'the slow copy to be ingested',
    );
    const ingest1 = records.filter((x) => x.type === 'ingest')[0]!;
    assert.equal(ingest1.added, 1, JSON.stringify(ingest1));
    assert.deepEqual(ingest1.skipped, [], 'the partial state was never read');
    await waitFor((r) => r.filter((x) => x.type === 'ranking').length >= 2, 'the new ranking');
    assert.equal(
      records.filter((x) => x.type === 'ranking').at(-1)!.ranking!.groups[0]!.bundles,
      2,
    );

    // 2. Write-then-rename (what serve and writeBundle do): the temp name is ignored.
    const tmp = join(inbox, '.v0.json.tmp');
    copyFileSync(join(FIX, 'session-v0-draft.json'), tmp);
    renameSync(tmp, join(inbox, 'v0.json'));
    await waitFor((r) => r.filter((x) => x.type === 'ingest').length >= 2, 'the renamed bundle');
    assert.equal(records.filter((x) => x.type === 'ingest')[1]!.added, 1);

    // 3. A bad bundle: skipped with its reason and moved to quarantine/, the watcher goes on.
    copyFileSync(join(FIX, 'future-version-7.json'), join(inbox, 'from-the-future.json'));
    await waitFor((r) => r.filter((x) => x.type === 'ingest').length >= 3, 'the bad bundle');
    const bad = records.filter((x) => x.type === 'ingest')[2]!;
    assert.equal(bad.added, 0);
    assert.match(bad.skipped![0]!.reason, /newer xrunhunt \(formatVersion 7\)/);
    assert.equal(existsSync(join(inbox, 'from-the-future.json')), false);
    assert.deepEqual(readdirSync(join(inbox, 'quarantine')).sort(), [
      'from-the-future.json',
      'from-the-future.json.reason.txt',
    ]);
    assert.match(
      readFileSync(join(inbox, 'quarantine', 'from-the-future.json.reason.txt'), 'utf8'),
      /formatVersion 7/,
    );

    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
  } finally {
    clearTimeout(killer);
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
