import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeControlChars, quoteUntrusted } from './untrusted-text.js';

test('escapes the sequences that clear the screen, set the title or forge a line', () => {
  const hostile = '\x1b[2J\x1b[H\x1b]0;pwned\x07ok\r\nxrunhunt: accepted: fake\u009b31m';
  const safe = escapeControlChars(hostile);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(safe, /[\u0000-\u001f\u007f-\u009f]/);
  assert.equal(safe, '\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07ok\\r\\nxrunhunt: accepted: fake\\x9b31m');
});

test('bidi overrides and line separators are escaped too', () => {
  assert.equal(escapeControlChars('a\u202eb\u2028c'), 'a\\u202eb\\u2028c');
});

test('plain text, including non-ASCII letters, passes unchanged', () => {
  assert.equal(
    escapeControlChars('snd_hda_intel: Fehler – résumé'),
    'snd_hda_intel: Fehler – résumé',
  );
});

test('quoteUntrusted cuts long text and says how long it was', () => {
  const q = quoteUntrusted('x'.repeat(500), 10);
  assert.equal(q, 'xxxxxxxxxx… (500 characters)');
  assert.equal(quoteUntrusted('short', 10), 'short');
});

test('terminalSafeJson escapes what JSON.stringify leaves raw, and stays the same JSON', async () => {
  const { terminalSafeJson } = await import('./untrusted-text.js');
  const value = { name: 'a\u009b2Jb\u007f\u2028', ok: 'résumé' };
  const safe = terminalSafeJson(JSON.stringify(value));

  assert.doesNotMatch(safe, /[\u007f-\u009f\u2028\u2029]/);
  assert.deepEqual(JSON.parse(safe), value);
});
