// How errors reach the user: known errors without a stack; bugs with a stack only on --debug.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { CliIo } from './command.js';
import { reportError } from './main.js';
import { XrunhuntError } from '../errors.js';

function io(): { io: CliIo; text: () => string } {
  const err = new PassThrough();
  let text = '';
  err.on('data', (d: Buffer) => (text += d.toString()));
  const out = new PassThrough();
  return {
    io: {
      stdout: out,
      stderr: err,
      stdin: new PassThrough(),
      env: {},
      cwd: '/',
      stdoutIsTTY: false,
      stderrIsTTY: false,
    },
    text: () => text,
  };
}

test('an internal error names itself a bug and points at --debug; no stack without it', () => {
  const t = io();
  assert.equal(reportError(t.io, new TypeError('x is undefined')), 1);
  assert.match(t.text(), /internal error \(this is a bug, please report it\): x is undefined/);
  assert.match(t.text(), /--debug for the stack trace/);
  assert.doesNotMatch(t.text(), /\n\s+at /);
});

test('--debug prints the stack of an internal error and of a known error with its cause', () => {
  const a = io();
  reportError(a.io, new TypeError('x is undefined'), true);
  assert.match(a.text(), /TypeError: x is undefined\n\s+at /);
  const b = io();
  reportError(b.io, new XrunhuntError('input', 'bad', { cause: new Error('EIO deep down') }), true);
  assert.match(b.text(), /^xrunhunt: error: bad\n/);
  assert.match(b.text(), /caused by Error: EIO deep down/);
  const c = io();
  reportError(c.io, new XrunhuntError('input', 'bad', { cause: new Error('EIO deep down') }));
  assert.equal(c.text(), 'xrunhunt: error: bad\n');
});

// Issue 30 item 5: the last line of defence for a message that quoted a value unescaped.
test('error messages and hints reach the terminal with control characters escaped', () => {
  const t = io();
  reportError(
    t.io,
    new XrunhuntError('usage', 'bad "\u001b]0;pwned\u0007"', { hint: 'x\u009b31m' }),
  );
  reportError(t.io, new TypeError('evil \u001b[2J'));
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(t.text(), /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  assert.match(t.text(), /bad "\\x1b\]0;pwned\\x07"/);
});
