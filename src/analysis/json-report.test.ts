// The streamed --json document must parse to exactly the document of the whole result
// (what every reader of analyze's JSON was written against), with and without events, and
// must wait for a slow reader instead of buffering without bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { analyzeFiles } from './analyze-files.js';
import { analysisJson, createJsonReportWriter } from './json-report.js';
import { writeAnalyzeReport } from './stream-report.js';

const dir = fileURLToPath(new URL('../../test/fixtures/kernel-logs/', import.meta.url));
const io = { stdin: Readable.from([]) };

function collector(): { out: Writable; text: () => string } {
  const parts: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      parts.push(chunk);
      cb();
    },
  });
  return { out, text: () => Buffer.concat(parts).toString('utf8') };
}

test('the streamed document equals the whole-result document on every fixture', async () => {
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.txt'))) {
    const whole = await analyzeFiles([`${dir}${f}`], io);
    const c = collector();
    await writeAnalyzeReport([`${dir}${f}`], { ...io, stdout: c.out }, { format: 'json' });
    assert.deepEqual(JSON.parse(c.text()), analysisJson(whole), f);
  }
});

test('the writer waits for a slow reader (backpressure), then finishes the document', async () => {
  let calls = 0;
  const parts: string[] = [];
  // A reader that takes one piece at a time and makes the writer wait for "drain".
  const slow = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _enc, cb) {
      calls++;
      parts.push(chunk.toString('utf8'));
      setImmediate(cb);
    },
  });
  const w = createJsonReportWriter(slow);
  const ev = (await analyzeFiles([`${dir}lab-6.1-x86_64-shapes-dmesg.txt`], io)).events[0]!;
  for (let i = 0; i < 3000; i++) w.event(ev);
  const paced = w.pace();
  assert.equal(slow.writableNeedDrain, true, 'more than the reader can take was offered');
  await paced;
  assert.equal(slow.writableNeedDrain, false, 'pace() resolved only once the reader drained');
  await w.end({
    offenders: [],
    summary: {
      events: 3000,
      byKind: { xrun: 3000, hw_ptr_error: 0, invalid_position: 0 },
      byClass: { kernel: 3000, idle: 0, user: 0, none: 0, 'detector-only': 0 },
      offenders: 0,
      lines: 1,
      rulesVersion: 'x',
    },
    warnings: [],
  });
  await new Promise<void>((r) => slow.end(r));
  const doc = JSON.parse(parts.join('')) as { events: unknown[]; summary: { events: number } };
  assert.equal(doc.events.length, 3000);
  assert.equal(doc.summary.events, 3000);
  assert.ok(calls >= 2);
});
