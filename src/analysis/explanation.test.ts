// Each offender decision explains itself: the rule, the boundary, and every frame skipped on
// the way with the role that skipped it, in JSON and as text lines for --verbose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { analyzeText } from './analyzer.js';
import { renderExplanation } from './classify.js';

const dir = fileURLToPath(new URL('../../test/fixtures/kernel-logs/', import.meta.url));

test('the explanation names the rule, the boundary and the skipped frames by role', () => {
  const r = analyzeText(readFileSync(dir + 'lab-6.1-x86_64-shapes-dmesg.txt', 'utf8'));
  const e = r.events[0]!;
  const x = e.offender.explanation!;
  assert.equal(x.chosen, '__filemap_add_folio');
  assert.match(x.boundary, /registers/);
  const roles = new Map(x.skipped.map((s) => [s.function, s.role]));
  assert.equal(roles.get('__snd_pcm_xrun'), 'detector (ALSA core)');
  assert.equal(roles.get('sysvec_apic_timer_interrupt'), 'IRQ entry/exit');
  assert.equal(roles.get('_raw_spin_unlock_irq'), 'primitive (irq-enable/unlock/preempt/delay)');
  // Every frame before the chosen one is accounted for, in order.
  assert.deepEqual(
    x.skipped.map((s) => s.function),
    e.frames.slice(0, e.offenderIndex).map((f) => f.function),
  );
  const lines = renderExplanation(x);
  assert.equal(lines[0], `rule: ${e.offender.reason!}`);
  assert.ok(lines.includes('chosen: __filemap_add_folio'));
  assert.ok(lines.some((l) => l.startsWith('  skipped __snd_pcm_xrun: detector')));
});

test('a decision without an offender still explains itself', () => {
  const none = analyzeText('XRUN: pcmC0D0p\n').events[0]!.offender.explanation!;
  assert.deepEqual(none, {
    rule: 'no stack printed',
    boundary: 'no interrupt boundary in the stack',
    chosen: null,
    skipped: [],
  });
});

test('--verbose text and markdown reports print each decision; the default report does not', async () => {
  const { renderTextReport, renderMarkdownReport } = await import('./report.js');
  const r = analyzeText(readFileSync(dir + 'lab-6.1-x86_64-shapes-dmesg.txt', 'utf8'));
  const verbose = renderTextReport(r, { verbose: true });
  assert.match(verbose, /rule: interrupted kernel registers/);
  assert.match(verbose, /skipped __snd_pcm_xrun: detector \(ALSA core\)/);
  assert.doesNotMatch(renderTextReport(r), /skipped __snd_pcm_xrun/);
  assert.match(renderMarkdownReport(r, { verbose: true }), / {2}- chosen: __filemap_add_folio/);
});
