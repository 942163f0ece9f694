// Issue 30 item 7: the lab's streamed output named guest paths (/run/xrunhunt-results/…) that
// do not exist on the host; they are rewritten to the host's copy, whatever the read sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guestPathRewriter } from './guest-path-rewrite.js';

const GUEST = '/run/xrunhunt-results';
const HOST = '/home/alice/xrunhunt-lab-20261207-050000';
const TEXT =
  'Files\n  bundle: /run/xrunhunt-results/xrunhunt-1/bundle.json.gz\n' +
  '{"bundle":"/run/xrunhunt-results/xrunhunt-1/bundle.json.gz"}\n' +
  'progress 10%\rprogress 20% in /run/xrunhunt-results\r' +
  'not a path: /run/xrunhunt-resultsX/y and /tmp/run/xrunhunt-results-old and /srv/run/xrunhunt-results/z\n' +
  'last line without newline /run/xrunhunt-results/k';

function feed(chunks: string[]): string {
  const r = guestPathRewriter(GUEST, HOST);
  return chunks.map((c) => r.push(c)).join('') + r.flush();
}

test('every whole-component mention of the guest folder becomes the host folder', () => {
  const out = feed([TEXT]);
  assert.match(
    out,
    /bundle: \/home\/alice\/xrunhunt-lab-20261207-050000\/xrunhunt-1\/bundle\.json\.gz\n/,
  );
  assert.match(out, /"bundle":"\/home\/alice\/xrunhunt-lab-20261207-050000\/xrunhunt-1\//);
  assert.match(out, /progress 20% in \/home\/alice\/xrunhunt-lab-20261207-050000\r/);
  assert.match(out, /\/tmp\/run\/xrunhunt-results-old and \/srv\/run\/xrunhunt-results\/z\n/);
  assert.match(out, /\/run\/xrunhunt-resultsX\/y/);
  assert.match(out, /without newline \/home\/alice\/xrunhunt-lab-20261207-050000\/k$/);
  assert.doesNotMatch(out, /(?<!srv)\/run\/xrunhunt-results\//);
});

test('the result does not depend on where the reads split the text', () => {
  const whole = feed([TEXT]);
  for (const size of [1, 2, 3, 7, 13, 64]) {
    const chunks: string[] = [];
    for (let i = 0; i < TEXT.length; i += size) chunks.push(TEXT.slice(i, i + size));
    assert.equal(feed(chunks), whole, `chunks of ${size}`);
  }
});

test('a host folder that would need escaping in JSON is left out rather than break a document', () => {
  const r = guestPathRewriter(GUEST, '/home/a"b');
  assert.equal(r.push(TEXT) + r.flush(), TEXT);
});
