import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { OptionSpecs } from './command.js';
import { flattenCatalog, loadAllEntries } from './command-catalog.js';
import { manPageDate, renderManPage, roffText } from './man-page.js';

const entries = await loadAllEntries();

test('roff escaping: a leading dot, backslashes, dashes and non-ASCII cannot become requests', () => {
  assert.equal(roffText('.so /etc/passwd'), '\\&.so /etc/passwd');
  assert.equal(roffText("'br"), "\\&'br");
  assert.equal(roffText('a\\b --x ×'), 'a\\eb \\-\\-x \\[u00D7]');
});

test('groff renders the page without a single warning', () => {
  const page = renderManPage(entries, '0.1.0');
  const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z'], { input: page, encoding: 'utf8' });
  assert.equal(r.error, undefined, 'groff must be installed (Debian: groff-base)');
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
});

test('every command and every option from the specs is in the page', () => {
  const page = renderManPage(entries, '0.1.0');
  for (const { words, command } of flattenCatalog(entries)) {
    assert.ok(page.includes(`.SS "${roffText(words.join(' '))}"`), words.join(' '));
    for (const name of Object.keys(command.options as OptionSpecs)) {
      assert.ok(page.includes(`\\fB\\-\\-${roffText(name)}\\fR`), `${words.join(' ')} --${name}`);
    }
  }
  assert.match(page, /Old spelling \\-\\-periods still accepted \(deprecated\)/);
});

test('the date comes from SOURCE_DATE_EPOCH only', () => {
  assert.equal(manPageDate({ SOURCE_DATE_EPOCH: '1764547200' }), '2025-12-01');
  assert.equal(manPageDate({}), '');
});
