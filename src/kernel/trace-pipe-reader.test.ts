import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTracePipe } from './trace-pipe-reader.js';

// A read(2) stand-in that hands out the given chunks one per call (as trace_pipe hands out at
// most a page), then EAGAIN; the reader is stopped after `stopAfter` sleeps.
// A null chunk is one EAGAIN (the reader then sleeps and reads again).
function chunkedRead(chunks: (Buffer | null)[]) {
  let i = 0;
  return (_fd: number, buf: Buffer, off: number): number => {
    const c = chunks[i++];
    if (!c) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
    c.copy(buf, off);
    return c.length;
  };
}

async function readAll(chunks: (Buffer | null)[], maxLineBytes = 1024) {
  const batches: string[][] = [];
  let overlong = 0;
  let sleeps = 0;
  let bytes = 0;
  await readTracePipe({
    fd: () => 3,
    stopped: () => sleeps > chunks.filter((c) => c === null).length,
    closing: () => false,
    onLines: (l) => batches.push(l),
    onBytes: (n) => (bytes += n),
    onOverlong: () => overlong++,
    sleep: async () => void sleeps++,
    bufferBytes: 64 * 1024,
    maxLineBytes,
    read: chunkedRead(chunks),
  });
  return { batches, overlong, bytes };
}

test('lines cut across reads come out whole, in one batch per run of reads; empty lines left out', async () => {
  const r = await readAll([
    Buffer.from('a-1 [000] x\nb-2 [0'),
    Buffer.from('01] y\n\n'),
    Buffer.from('c'),
  ]);
  // The last partial line is flushed at the end.
  assert.deepEqual(r.batches, [['a-1 [000] x', 'b-2 [001] y'], ['c']]);
  assert.equal(r.bytes, 26);
});

test('a UTF-8 character split between two reads is decoded whole', async () => {
  const text = Buffer.from('comm=héllo\n');
  const at = text.indexOf(0xc3) + 1; // inside the two bytes of é
  const r = await readAll([text.subarray(0, at), text.subarray(at)]);
  assert.deepEqual(r.batches, [['comm=héllo']]);
});

test('a partial line longer than the limit is dropped and counted (bounded memory)', async () => {
  const r = await readAll([Buffer.from('x'.repeat(2000)), null, Buffer.from('\nok\n')], 1024);
  assert.equal(r.overlong, 1);
  assert.deepEqual(r.batches.flat(), ['ok']);
});

test('a real file descriptor: read to EOF, then poll until stopped; other errors are thrown', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-tpr-'));
  try {
    const f = join(dir, 'pipe');
    writeFileSync(f, 'one\ntwo\n');
    const fd = openSync(f, 'r');
    const got: string[] = [];
    let sleeps = 0;
    await readTracePipe({
      fd: () => fd,
      stopped: () => sleeps >= 2,
      closing: () => false,
      onLines: (l) => got.push(...l),
      sleep: async () => void sleeps++,
      bufferBytes: 64 * 1024,
      maxLineBytes: 1024,
    });
    assert.deepEqual(got, ['one', 'two']);
    closeSync(fd);
    await assert.rejects(
      readTracePipe({
        fd: () => fd,
        stopped: () => false,
        closing: () => false,
        onLines: () => undefined,
        sleep: async () => undefined,
        bufferBytes: 8192,
        maxLineBytes: 1024,
      }),
      /EBADF/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('once stopped with drainMs, it reads on without sleeping until the pipe is empty', async () => {
  const lines: string[] = [];
  let stopped = false;
  let drain: [boolean, number] | null = null;
  const chunks = [null, Buffer.from('a\n'), Buffer.from('b\n'), null];
  const read = chunkedRead(chunks);
  await readTracePipe({
    fd: () => 3,
    stopped: () => stopped,
    closing: () => false,
    onLines: (l) => lines.push(...l),
    // The stop comes during the first poll sleep: a and b were written before it.
    sleep: async () => void (stopped = true),
    bufferBytes: 64 * 1024,
    maxLineBytes: 1024,
    read,
    drainMs: 1000,
    onDrained: (emptied, n) => (drain = [emptied, n]),
  });
  assert.deepEqual(lines, ['a', 'b']);
  assert.deepEqual(drain, [true, 2]);
});

test('a drain ends at its deadline when the pipe never empties, and says so', async () => {
  let t = 0;
  let drain: [boolean, number] | null = null;
  let n = 0;
  await readTracePipe({
    fd: () => 3,
    stopped: () => true,
    closing: () => false,
    onLines: () => undefined,
    sleep: async () => undefined,
    bufferBytes: 8192,
    maxLineBytes: 1024,
    // Always a full buffer of lines; each batch advances the clock 10 ms.
    read: (_fd, buf, off, len) => {
      t += 10;
      n++;
      return buf.write('x\n'.repeat(len / 2), off);
    },
    now: () => t,
    drainMs: 100,
    onDrained: (emptied, lines) => (drain = [emptied, lines]),
  });
  assert.equal(drain![0], false);
  assert.ok(n >= 10 && n <= 12, `${n} reads in a 100 ms drain at 10 ms each`);
});

test('without drainMs a stopped reader ends at once, reading nothing more', async () => {
  let reads = 0;
  await readTracePipe({
    fd: () => 3,
    stopped: () => true,
    closing: () => false,
    onLines: () => undefined,
    sleep: async () => undefined,
    bufferBytes: 8192,
    maxLineBytes: 1024,
    read: () => ++reads,
  });
  assert.equal(reads, 0);
});
