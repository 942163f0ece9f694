import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { analyzeText, RULES_VERSION } from '../analysis/index.js';
import { toBundleV1Class } from '../analysis/bundle-class.js';
import { bundleFramesToLog, framesToBundleText } from './frame-text.js';
import { loadAnalyzerSigner, toOffender } from './signer.js';
import { fixtureJson } from './test-fixtures.js';

const LOGS = new URL('../../test/fixtures/kernel-logs/', import.meta.url);

test('frames become bundle text with context markers where the context changes', () => {
  const text = framesToBundleText([
    { function: 'snd_pcm_period_elapsed', module: 'snd_pcm', reliable: true, context: 'irq' },
    { function: 'common_interrupt', reliable: true, context: 'irq' },
    { function: 'vprintk', reliable: false, context: 'task' },
    { function: '_raw_spin_unlock_irq', reliable: true, context: 'task' },
    { function: '__filemap_add_folio', reliable: true, context: 'task' },
  ]);
  assert.deepEqual(text, [
    '<IRQ>',
    'snd_pcm_period_elapsed [snd_pcm]',
    'common_interrupt',
    '</IRQ>',
    '<TASK>',
    '? vprintk',
    '_raw_spin_unlock_irq',
    '__filemap_add_folio',
  ]);
  assert.deepEqual(
    bundleFramesToLog(['RIP: f [m]', '? g', 'RIP: 0033:0x7f00', '</IRQ>']).slice(2),
    ['RIP: 0010:f+0x1/0x2 [m]', ' ? g+0x1/0x2', 'RIP: 0033:0x7f00', ' </IRQ>'],
  );
});

test('the analyzer signer re-signs the fixtures to their recorded offenders', async () => {
  const s = await loadAnalyzerSigner();
  assert.equal(s.rulesVersion, String(RULES_VERSION));
  for (const f of ['session-ext4-writeback.json', 'session-lab-test-lockup.json.gz']) {
    const events = fixtureJson(f)['events'] as {
      offender: { class: string; signature: string | null };
      frames: string[];
    }[];
    for (const e of events) {
      const o = s.sign(e.frames);
      assert.equal(o.class, e.offender.class);
      if (o.class === 'kernel') assert.equal(o.signature, e.offender.signature);
    }
  }
});

test('round trip over every real corpus log: analyzer frames → bundle text → re-signed gives the same offender', async () => {
  const s = await loadAnalyzerSigner();
  let checked = 0;
  const lossy: string[] = [];
  for (const name of readdirSync(LOGS).filter((n) => n.endsWith('.txt'))) {
    for (const e of analyzeText(readFileSync(new URL(name, LOGS), 'utf8')).events) {
      if (e.frames.length === 0) continue;
      const o = s.sign(framesToBundleText(e.frames));
      // The plain form ("func [module]" only, no markers) loses the context: count where it
      // disagrees, to show why bundles must carry the marked form.
      const plain = s.sign(
        e.frames.map((f) => (f.module ? `${f.function} [${f.module}]` : f.function)),
      );
      if (
        plain.class !== toBundleV1Class(e.offender.class) ||
        plain.signature !== e.offender.signature
      )
        lossy.push(name);
      // Bundles v1 know four classes: detector-only travels as none (its signature says so).
      assert.deepEqual(
        [o.class, o.signature],
        [toBundleV1Class(e.offender.class), e.offender.signature],
        `${name} line ${e.line}`,
      );
      checked++;
    }
  }
  assert.ok(checked >= 40, `checked ${checked} events`);
  if (lossy.length)
    process.stderr.write(
      `# plain frames (no markers) re-sign differently for: ${lossy.join(', ')}\n`,
    );
});

test('toOffender coerces anything into plain offender data', () => {
  assert.deepEqual(
    toOffender({ class: 'kernel', function: 'f', module: null, signature: 's', reason: 'x' }),
    {
      class: 'kernel',
      function: 'f',
      module: null,
      signature: 's',
    },
  );
  assert.deepEqual(toOffender(42), {
    class: 'none',
    function: null,
    module: null,
    signature: null,
  });
});
