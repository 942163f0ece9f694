import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isYoungInboxFile, watchInboxes } from './inbox-watch.js';

test('a bundle written between the first ingest and the watcher being ready is not missed', async () => {
  const inbox = mkdtempSync(join(tmpdir(), 'xrunhunt-inbox-'));
  const ac = new AbortController();
  try {
    const listedAtMs = Date.now();
    // Arrives after the caller listed the inbox, before chokidar is ready: no event for it.
    writeFileSync(join(inbox, 'late.json'), '{}');
    // An old file the first ingest already read: not reported again.
    writeFileSync(join(inbox, 'old.json'), '{}');
    const old = new Date(listedAtMs - 60_000);
    utimesSync(join(inbox, 'old.json'), old, old);
    const seen: string[] = [];
    const got = new Promise<void>((resolve) => {
      void watchInboxes([inbox], {
        signal: ac.signal,
        stableMs: 200,
        catchUpSinceMs: listedAtMs,
        onFiles: (_root, files) => {
          seen.push(...files);
          resolve();
        },
      });
    });
    await Promise.race([got, new Promise((r) => setTimeout(r, 10_000))]);
    assert.deepEqual(seen, [join(inbox, 'late.json')]);
  } finally {
    ac.abort();
    rmSync(inbox, { recursive: true, force: true });
  }
});

test('young means modified within the stability window before the listing, or later', () => {
  assert.equal(isYoungInboxFile(10_000, 10_000, 1000), true);
  assert.equal(isYoungInboxFile(9_500, 10_000, 1000), true);
  assert.equal(isYoungInboxFile(5_000, 10_000, 1000), false);
});
