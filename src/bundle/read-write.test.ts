import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { XrunhuntError } from '../errors.js';
import { parseBundleBytes, readBundle } from './read.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';
import { writeBundle } from './write.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'xrh-rw-'));

test('round trip: written .json and .json.gz read back equal; no temp files left', async () => {
  const dir = tmp();
  try {
    const b = validateBundle(fixtureJson('session-ext4-writeback.json'));
    await writeBundle(join(dir, 'a.json'), b);
    await writeBundle(join(dir, 'a.json.gz'), b);
    assert.deepEqual(await readBundle(join(dir, 'a.json')), b);
    assert.deepEqual(await readBundle(join(dir, 'a.json.gz')), b);
    const gz = readFileSync(join(dir, 'a.json.gz'));
    assert.deepEqual([gz[0], gz[1]], [0x1f, 0x8b]);
    assert.deepEqual(readdirSync(dir).sort(), ['a.json', 'a.json.gz']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('gzip is recognised by content, not by name', () => {
  const text = JSON.stringify(fixtureJson('session-ext4-writeback.json'));
  assert.equal(parseBundleBytes(gzipSync(text), 'renamed.json').events.length, 4);
});

test('truncated gzip, corrupt gzip, bad JSON and empty files get their own clear messages', () => {
  const gz = gzipSync(JSON.stringify(fixtureJson('session-ext4-writeback.json')));
  const cases: [Buffer, RegExp][] = [
    [gz.subarray(0, Math.floor(gz.length / 2)), /bundle t: the gzip data is truncated/],
    [
      Buffer.concat([gz.subarray(0, 20), Buffer.alloc(200, 7)]),
      /bundle t: the gzip data is (corrupt|truncated)/,
    ],
    [Buffer.from('{"formatVersion": 1, "tool": '), /bundle t: not valid JSON/],
    [Buffer.from('  \n'), /bundle t: the file is empty/],
  ];
  for (const [bytes, re] of cases) {
    assert.throws(
      () => parseBundleBytes(bytes, 't'),
      (err: unknown) =>
        err instanceof XrunhuntError && err.code === 'format' && re.test(err.message),
    );
  }
});

test('a gzip bomb is stopped at the size limit', () => {
  const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20));
  assert.throws(
    () => parseBundleBytes(bomb, 'b', 1024 * 1024),
    /decompresses to more than 1048576 bytes/,
  );
});

test('missing files and folders are not-found / input errors', async () => {
  const dir = tmp();
  try {
    await assert.rejects(
      readBundle(join(dir, 'nope.json')),
      (e: unknown) => e instanceof XrunhuntError && e.code === 'not-found',
    );
    await assert.rejects(readBundle(dir), /is a directory/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('writeBundle refuses an invalid bundle and leaves the old file intact', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'b.json');
    writeFileSync(p, 'old');
    const bad = { ...validateBundle(fixtureJson('session-ext4-writeback.json')), durationMs: -1 };
    await assert.rejects(writeBundle(p, bad), /durationMs: expected a number ≥ 0, found -1/);
    assert.equal(readFileSync(p, 'utf8'), 'old');
    assert.deepEqual(readdirSync(dir), ['b.json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
