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
import { analyzeFiles, streamAnalyzeFiles } from './analyze-files.js';
import { analyzeText } from './analyzer.js';
import type { XrunEvent } from './types.js';

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

const byPlace = (evs: XrunEvent[]): XrunEvent[] =>
  [...evs].sort((x, y) => (x.source ?? '').localeCompare(y.source ?? '') || x.line - y.line);

test('segments: tiny segments give exactly the events of one analyzer (fixtures and mixtures)', async () => {
  const pool = logs.flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'));
  const r = rng(99);
  const texts = logs.map((f) => readFileSync(join(dir, f), 'utf8'));
  for (let round = 0; round < 3; round++) {
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) {
      const start = Math.floor(r() * pool.length);
      lines.push(...pool.slice(start, start + Math.floor(r() * 80)));
    }
    texts.push(lines.join('\n') + '\n');
  }
  for (const [i, text] of texts.entries()) {
    const file = join(tmp, `seg${i}.log`);
    writeFileSync(file, text);
    const expected = analyzeText(text).events;
    for (const segmentLines of [1, 5, 37]) {
      const got = await analyzeFiles([file], io, { limits: { segmentLines, overlapLines: 1000 } });
      assert.deepEqual(
        byPlace(got.events),
        byPlace(expected),
        `text ${i}, segment ${segmentLines}`,
      );
      assert.equal(got.summary.events, expected.length);
    }
  }
});

test('segments: events leave while the input is still being read (memory bound)', async () => {
  // 20 000 header-only XRUN lines, as a stream of 100-line chunks; with 50-line segments
  // and a 20-line overlap, at most 50 + 20 + one chunk of events may be held back.
  const chunkLines = 100;
  const total = 20000;
  let fed = 0;
  let maxHeld = 0;
  let delivered = 0;
  async function* source(): AsyncGenerator<Buffer> {
    for (let i = 0; i < total; i += chunkLines) {
      maxHeld = Math.max(maxHeld, fed - delivered);
      let s = '';
      for (let j = 0; j < chunkLines; j++)
        s += `[ ${(i + j + 1).toFixed(6)}] snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0\n`;
      fed += chunkLines;
      yield Buffer.from(s);
    }
  }
  const r = await streamAnalyzeFiles(
    '-',
    { stdin: Readable.from(source()) },
    { onEvent: () => delivered++, limits: { segmentLines: 50, overlapLines: 20 } },
  );
  assert.equal(delivered, total);
  assert.equal(r.summary.events, total);
  assert.equal(r.summary.byKind.xrun, total);
  assert.ok(maxHeld <= 50 + 20 + chunkLines, `held back ${maxHeld} events`);
});

test('lone CR line ends (old Mac files, serial captures) are line ends; CRLF stays one', async () => {
  const text = readFileSync(join(dir, 'lab-6.1-x86_64-shapes-dmesg.txt'), 'utf8');
  const expected = analyzeText(text).events;
  assert.ok(expected.length > 0);
  const cr = text.replace(/\n/g, '\r');
  const file = join(tmp, 'cr-only.log');
  writeFileSync(file, cr);
  assert.deepEqual((await analyzeFiles([file], io)).events, expected);
  // Mixed: CRLF, lone CR and LF, and a chunk boundary right after a CR (both kinds).
  const lines = text.split('\n');
  const mixed = lines.map((l, i) => l + ['\r\n', '\r', '\n'][i % 3]).join('');
  const parts: Buffer[] = [];
  let rest = Buffer.from(mixed);
  for (let at = rest.indexOf(13); at >= 0 && parts.length < 40; at = rest.indexOf(13)) {
    parts.push(rest.subarray(0, at + 1));
    rest = rest.subarray(at + 1);
  }
  parts.push(rest);
  const viaStdin = await analyzeFiles('-', { stdin: Readable.from(parts) });
  assert.deepEqual(viaStdin.events, analyzeText(mixed.replace(/\r\n?/g, '\n')).events);
  assert.deepEqual(viaStdin.events, expected);
});

test('a log given in two pieces (rotated) reads like the whole, in either order', async () => {
  const name = 'lab-6.1-x86_64-shapes-dmesg.txt';
  const text = readFileSync(join(dir, name), 'utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const whole = analyzeText(text).events;
  const r = rng(7);
  for (let k = 0; k < 12; k++) {
    const cut = 1 + Math.floor(r() * (lines.length - 2));
    const sub = mkdtempSync(join(tmp, 'rot-'));
    const older = join(sub, 'kern.log.1');
    const newer = join(sub, 'kern.log');
    writeFileSync(older, lines.slice(0, cut).join('\n') + '\n');
    writeFileSync(k % 2 ? newer : newer, lines.slice(cut).join('\n') + '\n');
    const expected = whole.map((e) =>
      e.line <= cut
        ? { ...e, source: 'kern.log.1' }
        : { ...e, line: e.line - cut, source: 'kern.log' },
    );
    for (const order of [
      [older, newer],
      [newer, older],
    ]) {
      const got = await analyzeFiles(order, io);
      assert.deepEqual(got.events, expected, `cut after line ${cut}`);
    }
  }
});

test('segments: a log of nothing but space-led header lines is still cut (memory bound)', async () => {
  const total = 5000;
  let delivered = 0;
  let maxHeld = 0;
  let fed = 0;
  async function* source(): AsyncGenerator<Buffer> {
    for (let i = 0; i < total; i += 100) {
      maxHeld = Math.max(maxHeld, fed - delivered);
      fed += 100;
      yield Buffer.from(' XRUN: pcmC0D0p:0\n'.repeat(100));
    }
  }
  await streamAnalyzeFiles(
    '-',
    { stdin: Readable.from(source()) },
    { onEvent: () => delivered++, limits: { segmentLines: 50, overlapLines: 20 } },
  );
  assert.equal(delivered, total);
  assert.ok(maxHeld <= 50 + 20 + 100, `held back ${maxHeld} events`);
});

test('fast path finds a wrapped header whose first lines hold no trigger (every catalogue entry, cut at every space)', async () => {
  const { loadMessageCatalogue } = await import('./message-catalogue.js');
  const { CAPTURE_FORMS, PREFIX_SAMPLES, sampleMessage } = await import('./catalogue-samples.js');
  const entries = loadMessageCatalogue().catalogue.entries.filter(
    (e) => e.kind !== 'context' && e.kind !== 'note',
  );
  const filler = Array.from({ length: 40 }, (_, i) => `[    1.${i}] random: crng init done`).join(
    '\n',
  );
  const dmesg = CAPTURE_FORMS['dmesg']!;
  const parts: string[] = [];
  for (const entry of entries) {
    const prefixes = ['', ...entry.prefixes.map((p) => PREFIX_SAMPLES[p]![0]!)];
    for (const pre of prefixes) {
      const body = pre + sampleMessage(entry, false);
      const cuts: number[] = [];
      for (let i = 0; i < body.trimEnd().length; i++) if (body[i] === ' ') cuts.push(i);
      for (const i of cuts) parts.push(filler, dmesg(body.slice(0, i)), body.slice(i + 1));
      for (const i of cuts)
        for (const j of cuts)
          if (j > i + 1 && (i * 7 + j) % 5 === 0)
            parts.push(filler, dmesg(body.slice(0, i)), body.slice(i + 1, j), body.slice(j + 1));
    }
  }
  parts.push(filler);
  const text = parts.join('\n') + '\n';
  const f = join(tmp, 'wrapped-headers.log');
  writeFileSync(f, text);
  const got = await analyzeFiles([f], io);
  const want = analyzeText(text).events;
  assert.ok(want.length > 100, `the constructed log holds ${want.length} events`);
  assert.equal(got.events.length, want.length);
  assert.deepEqual(
    got.events.map((e) => [e.line, e.kind, e.pcm]),
    want.map((e) => [e.line, e.kind, e.pcm]),
  );
});

test('pieces whose order cannot be told from their names: a piece starting inside a stack is said to be cut', async () => {
  const text = readFileSync(join(dir, 'lab-6.1-x86_64-shapes-dmesg.txt'), 'utf8');
  const lines = text.split('\n');
  const header = lines.findIndex((l) => /XRUN:/.test(l));
  const cut = lines.findIndex((l, i) => i > header + 2 && /\+0x[0-9a-f]+\/0x/.test(l));
  const sub = mkdtempSync(join(tmp, 'cut-'));
  const first = join(sub, 'part-a.txt');
  const second = join(sub, 'part-b.txt');
  writeFileSync(first, lines.slice(0, cut).join('\n') + '\n');
  writeFileSync(second, lines.slice(cut).join('\n'));
  const cutWarning =
    /part-a\.txt starts inside a stack dump|part-b\.txt starts inside a stack dump/;
  const inOrder = await analyzeFiles([first, second], io);
  assert.deepEqual(inOrder.events.length, analyzeText(text).events.length);
  assert.ok(!inOrder.warnings.some((w) => cutWarning.test(w)), inOrder.warnings.join('\n'));
  const reversed = await analyzeFiles([second, first], io);
  assert.ok(
    reversed.warnings.some((w) =>
      /part-b\.txt starts inside a stack dump \(\d+ frame lines/.test(w),
    ),
    reversed.warnings.join('\n'),
  );
  const alone = await analyzeFiles([second], io);
  assert.ok(alone.warnings.some((w) => /starts inside a stack dump/.test(w)));
});
