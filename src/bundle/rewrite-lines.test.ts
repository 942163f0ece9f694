import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectText, rewriteLinesAtomic } from './rewrite-lines.js';

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-rewrite-lines-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'a line longer than the bound is transformed in pieces cut at blanks, never inside a word',
  withDir(async (dir) => {
    const path = join(dir, 'one-line.log');
    const words = Array.from({ length: 2000 }, (_, i) => `alice${i % 10}`);
    writeFileSync(path, words.join(' '));
    const batches: number[] = [];
    await rewriteLinesAtomic(
      path,
      (b) => {
        batches.push(b.length);
        return b.replace(/alice/g, 'X');
      },
      { maxPendingChars: 1024 },
    );
    assert.ok(batches.length > 1, 'cut into pieces');
    assert.ok(
      Math.max(...batches) < 1024 + 256 * 1024,
      'each piece bounded by the bound plus one read',
    );
    assert.equal(readFileSync(path, 'utf8'), words.map((w) => w.replace('alice', 'X')).join(' '));
    assert.deepEqual(readdirSync(dir), ['one-line.log']);
  }),
);

test(
  'a transform that throws leaves the original file and no temp file',
  withDir(async (dir) => {
    const path = join(dir, 'kernel.log');
    writeFileSync(path, 'a\nb\n');
    await assert.rejects(
      rewriteLinesAtomic(path, () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(readFileSync(path, 'utf8'), 'a\nb\n');
    assert.deepEqual(readdirSync(dir), ['kernel.log']);
  }),
);

test(
  'inspectText tells UTF-8, other text and binary apart',
  withDir(async (dir) => {
    const w = (name: string, bytes: Buffer): string => {
      writeFileSync(join(dir, name), bytes);
      return join(dir, name);
    };
    assert.deepEqual(await inspectText(w('u.txt', Buffer.from('café ✓\n'))), {
      binary: false,
      encoding: 'utf8',
    });
    assert.deepEqual(await inspectText(w('l.txt', Buffer.from([0x63, 0xe9, 0x0a]))), {
      binary: false,
      encoding: 'latin1',
    });
    // A multi-byte character cut at the very end is not valid UTF-8 either.
    assert.deepEqual(await inspectText(w('cut.txt', Buffer.from([0x61, 0xe2, 0x9c]))), {
      binary: false,
      encoding: 'latin1',
    });
    assert.equal((await inspectText(w('b.bin', Buffer.from([1, 0, 2])))).binary, true);
  }),
);
