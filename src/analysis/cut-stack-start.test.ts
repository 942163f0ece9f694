import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { leadingFrameLines } from './cut-stack-start.js';

const dir = fileURLToPath(new URL('../../test/fixtures/kernel-logs/', import.meta.url));

test('a log cut inside a stack dump starts with frames; a whole log does not', () => {
  const text = readFileSync(dir + 'lab-6.1-x86_64-shapes-dmesg.txt', 'utf8');
  assert.equal(leadingFrameLines(text), 0, 'starts with its header');
  const lines = text.split('\n');
  const header = lines.findIndex((l) => /XRUN:/.test(l));
  const frame = lines.findIndex((l, i) => i > header + 2 && /\+0x[0-9a-f]+\/0x/.test(l));
  assert.ok(frame > header, 'the fixture has frames after its first header');
  const cut = lines.slice(frame).join('\n');
  assert.ok(leadingFrameLines(cut) >= 2, 'frames first');
  assert.equal(leadingFrameLines('[    1.0] random: crng init done\n' + cut), 0);
});
