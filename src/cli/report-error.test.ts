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
