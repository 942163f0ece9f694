import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeSubmitAnswer, type SubmitReply } from './submit-answer.js';

const ID = 'a'.repeat(64);
const base: SubmitReply = {
  status: 201,
  text: JSON.stringify({ status: 'accepted', id: ID }),
  bodyProblem: null,
  retryAfter: undefined,
  tokenWithheld: false,
  redirectedTo: null,
};

test('accepted and duplicate answers print the id; JSON keeps the HTTP status', () => {
  const a = describeSubmitAnswer(base);
  assert.deepEqual([a.ok, a.line], [true, `accepted: ${ID}\n`]);
  assert.deepEqual(a.json, { status: 201, outcome: 'accepted', id: ID });
  const d = describeSubmitAnswer({ ...base, status: 200 });
  assert.deepEqual([d.ok, d.line], [true, `already there: ${ID}\n`]);
});

test('a hostile error text cannot clear the screen, set the title or forge a line', () => {
  const evil = '\u001b[2J\u001b]0;pwned\u0007\r\nxrunhunt: accepted: fake\u009b31m\u202e';
  for (const text of [JSON.stringify({ error: evil }), evil]) {
    const a = describeSubmitAnswer({ ...base, status: 400, text, retryAfter: '5\u001b[2J' });
    assert.equal(a.ok, false);
    assert.equal(a.line.split('\n').length, 2, 'exactly one line');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(a.line.slice(0, -1), /[\u0000-\u001f\u007f-\u009f\u202e]/);
    assert.match(a.line, /^xrunhunt: error: the server refused the bundle \(HTTP 400\): /);
    assert.match(a.line, /\\x1b\[2J/);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(String(a.json.error), /[\u0000-\u001f\u007f-\u009f\u202e]/);
  }
});

test('a success status with a forged or missing id is not a success', () => {
  for (const text of [
    JSON.stringify({ status: 'accepted', id: 'fake\nxrunhunt: accepted: x' }),
    'OK',
    '',
  ]) {
    const a = describeSubmitAnswer({ ...base, text });
    assert.equal(a.ok, false, text);
    assert.match(a.line, /answered HTTP 201 but its answer carries no bundle id/);
    assert.equal(a.line.split('\n').length, 2);
  }
});

test('a reply problem (too long, bomb) is said instead of the text; retry and token notes', () => {
  const a = describeSubmitAnswer({
    ...base,
    status: 503,
    text: '',
    bodyProblem: 'the reply is longer than 65536 bytes; stopped reading it',
    retryAfter: '5',
    tokenWithheld: true,
    redirectedTo: 'http://127.0.0.1:9',
  });
  assert.equal(a.ok, false);
  assert.match(a.line, /HTTP 503\) \(answered by http:\/\/127\.0\.0\.1:9\): the reply is longer/);
  assert.match(a.line, /\(retry in 5 s\) \(the token was not sent/);
  assert.equal(a.json.retryAfter, '5 s');
  const ok = describeSubmitAnswer({ ...base, bodyProblem: 'the reply is longer than 1 bytes' });
  assert.equal(ok.ok, false);
  assert.match(ok.line, /may or may not be stored/);
});
