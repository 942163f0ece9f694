// The IO shell's fast path (skipping lines while no record is open) must give exactly the
// result of feeding every line, on real fixtures and on random mixtures of their lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { analyzeFiles } from './analyze-files.js';
import { analyzeText } from './analyzer.js';

const dir = fileURLToPath(new URL('../../test/fixtures/kernel-logs/', import.meta.url));
const logs = readdirSync(dir).filter((f) => f.endsWith('.txt'));
const tmp = mkdtempSync(join(tmpdir(), 'xrunhunt-af-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));
const io = { stdin: Readable.from([]) };

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test('fast path equals line-by-line on every fixture', async () => {
  for (const f of logs) {
    const text = readFileSync(join(dir, f), 'utf8');
    const got = await analyzeFiles([join(dir, f)], io);
    assert.deepEqual(got.events, analyzeText(text).events, f);
  }
});

test('fast path equals line-by-line on random mixtures, with CRLF, gzip and stdin', async () => {
  const pool = logs.flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'));
  const r = rng(1234);
  for (let round = 0; round < 6; round++) {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      if (r() < 0.3) {
        // A contiguous run keeps whole dumps together.
        const start = Math.floor(r() * pool.length);
        lines.push(...pool.slice(start, start + Math.floor(r() * 60)));
      } else lines.push(pool[Math.floor(r() * pool.length)]!);
    }
    const eol = round % 3 === 0 ? '\r\n' : '\n';
    const text = lines.join(eol) + (round % 2 ? eol : '');
    const expected = analyzeText(text.replace(/\r\n/g, '\n')).events;
    const file = join(tmp, `mix${round}.log`);
    writeFileSync(file, round % 4 === 1 ? gzipSync(text) : text);
    assert.deepEqual((await analyzeFiles([file], io)).events, expected, `round ${round}`);
    if (round === 2) {
      const viaStdin = await analyzeFiles('-', { stdin: Readable.from([Buffer.from(text)]) });
      assert.deepEqual(viaStdin.events, expected);
    }
  }
});

test('a header split across read chunks is still found (line carried between chunks)', async () => {
  // 4 MiB reads: put an XRUN header across the first boundary.
  const filler = 'x'.repeat(99) + '\n';
  const n = Math.floor((4 * 1024 * 1024) / filler.length) - 1;
  const head = filler.repeat(n);
  const pad = 'y'.repeat(4 * 1024 * 1024 - head.length - 10);
  const text = `${head}${pad}\nsnd_dummy snd_dummy.0: XRUN: pcmC0D0p:0\nrandom: done\n`;
  const file = join(tmp, 'boundary.log');
  writeFileSync(file, text);
  const r = await analyzeFiles([file], io);
  assert.deepEqual(
    r.events.map((e) => [e.line, e.pcm]),
    [[n + 2, 'pcmC0D0p:0']],
  );
});
