import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uploadLogLine } from './upload-log-line.js';

const at = new Date(Date.UTC(2026, 11, 1, 10, 0, 0));

test('accepted uploads log their id; refusals and aborts say so', () => {
  const id = 'e'.repeat(64);
  assert.equal(
    uploadLogLine(at, { status: 201, outcome: 'accepted', client: '127.0.0.1', id }),
    `2026-12-01T10:00:00.000Z 127.0.0.1 201 ${id}\n`,
  );
  assert.equal(
    uploadLogLine(at, {
      status: 499,
      outcome: 'aborted',
      client: '::1',
      error: 'the client closed the connection after 9 bytes of the body',
    }),
    '2026-12-01T10:00:00.000Z ::1 499 aborted: the client closed the connection after 9 bytes of the body\n',
  );
});

test('client text in a log line cannot drive the terminal or forge a line', () => {
  const line = uploadLogLine(at, {
    status: 400,
    outcome: 'rejected',
    client: '10.0.0.1',
    error: 'bad \u001b[2J\u001b]0;x\u0007\n2026-12-01T10:00:00.000Z 10.0.0.1 201 forged',
  });
  assert.equal(line.split('\n').length, 2);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(line.slice(0, -1), /[\u0000-\u001f]/);
  assert.match(line, /rejected: bad \\x1b\[2J\\x1b\]0;x\\x07\\n2026/);
});
