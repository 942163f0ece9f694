import { test } from 'node:test';
import assert from 'node:assert/strict';
import { el, num, text } from './markup.js';

test('non-void elements always get a closing tag (HTML ignores the self-closing slash)', () => {
  assert.equal(el('div'), '<div></div>');
  assert.equal(el('rect', { x: 1 }), '<rect x="1"></rect>');
  assert.equal(el('meta', { charset: 'utf-8' }), '<meta charset="utf-8">');
});

test('attributes: escaped values, booleans, skipped null/undefined/false, rounded numbers', () => {
  assert.equal(
    el(
      'a',
      { title: '"<x>"', hidden: true, gone: undefined, no: false, nil: null, x: 1.23456 },
      text('<b>'),
    ),
    '<a title="&quot;&lt;x&gt;&quot;" hidden x="1.23">&lt;b&gt;</a>',
  );
  assert.equal(num(Number.NaN), '0');
  assert.equal(num(2), '2');
});
