import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml, escapeJsonForScript } from './escape.js';

test('markup characters are escaped in text and attributes', () => {
  assert.equal(
    escapeHtml(`<script>alert("x")</script> & 'y'`),
    '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;',
  );
});

test('control characters that would break inline SVG become U+FFFD; tab and newline stay', () => {
  assert.equal(escapeHtml('a\x00b\x1bc\td\ne\x7f'), 'a\ufffdb\ufffdc\td\ne\ufffd');
});

test('JSON for a script block cannot close the element', () => {
  const s = escapeJsonForScript({ a: '</script><b>&' });
  assert.ok(!s.includes('</script>'));
  assert.deepEqual(JSON.parse(s), { a: '</script><b>&' });
});
