import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usableJournalDir } from './journal-dir.js';

test('a writable preferred folder is used as it is, created with its parents', () => {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-jdir-'));
  try {
    const r = usableJournalDir(join(base, 'a/b/xrunhunt'), 1000, base);
    assert.deepEqual(r, { dir: join(base, 'a/b/xrunhunt'), fallbackReason: null });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a read-only preferred folder falls back to a runtime folder, with the reason', () => {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-jdir-'));
  const made: string[] = [];
  // MOCK fs: everything under /ro fails like a read-only root (EROFS); the rest is real.
  const fs = {
    mkdirSync: (p: string, o: { mode: number }) => {
      if (p.startsWith('/ro/')) throw Object.assign(new Error('EROFS'), { code: 'EROFS' });
      made.push(p);
      return mkdirSync(p, o);
    },
    accessSync: () => undefined,
  };
  try {
    const r = usableJournalDir('/ro/var/lib/xrunhunt', 1000, base, fs as never);
    assert.equal(r.dir, join(base, 'xrunhunt-1000'));
    assert.match(r.fallbackReason ?? '', /\/ro\/var\/lib\/xrunhunt is not writable \(EROFS\)/);
    assert.ok(made.includes(join(base, 'xrunhunt-1000')));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
