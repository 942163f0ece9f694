import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { quietStderr } from './quiet-stream.js';

test('--quiet keeps xrunhunt warnings and errors, drops progress, also across split writes', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const q = quietStderr(out);
  q.write('ingested 3 files: 3 new\n');
  q.write('xrunhunt: skipped bad.json: not val');
  q.write('id JSON\nwatching inbox (Ctrl-C to stop)\n');
  q.write('xrunhunt: warning: last line without newline');
  await new Promise<void>((done) => q.end(done));
  assert.equal(
    text,
    'xrunhunt: skipped bad.json: not valid JSON\nxrunhunt: warning: last line without newline\n',
  );
});

test('--quiet: progress rewritten with carriage returns is dropped, the warning after it survives', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const q = quietStderr(out);
  for (let i = 0; i < 10_000; i++) q.write(`\r  12.${i} s  xruns 0  headroom 1.2 ms`);
  q.write('\rxrunhunt: warning: the card went away\r\n');
  q.write('x'.repeat(200_000));
  await new Promise<void>((done) => q.end(done));
  assert.equal(text, 'xrunhunt: warning: the card went away\n');
});
