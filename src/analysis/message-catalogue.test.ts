// The catalogue of ALSA PCM diagnostics: validation at load, and one constructed line per
// entry in every printk-helper prefix and every capture form, through the real analyzer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { analyzeText } from './analyzer.js';
import { matchHeaderText } from './headers.js';
import {
  catalogueTriggerNeedles,
  loadMessageCatalogue,
  parseMessageCatalogue,
  type CatalogueEntry,
} from './message-catalogue.js';
import { CAPTURE_FORMS, PREFIX_SAMPLES, expectedPcm, sampleMessage } from './catalogue-samples.js';

const FILE = fileURLToPath(new URL('./catalogue/pcm-messages.json', import.meta.url));
const TEXT = readFileSync(FILE, 'utf8');
const cat = loadMessageCatalogue();
const isEvent = (e: CatalogueEntry): boolean => e.kind !== 'context' && e.kind !== 'note';

test('the shipped catalogue loads, every entry has provenance and versions', () => {
  assert.ok(cat.catalogue.entries.length >= 30, `${cat.catalogue.entries.length} entries`);
  for (const e of cat.catalogue.entries) {
    assert.ok(e.first.length > 0 && e.last.length > 0, e.id);
    assert.ok(e.debugOff.length > 0, e.id);
  }
  const kinds = new Set(cat.catalogue.entries.map((e) => e.kind));
  for (const k of ['xrun', 'hw_ptr_error', 'invalid_position', 'context', 'note'])
    assert.ok(kinds.has(k as CatalogueEntry['kind']), k);
});

test('validation names the entry and what is wrong', () => {
  const doc = JSON.parse(TEXT) as { entries: Record<string, unknown>[] };
  const broken = (change: (e: Record<string, unknown>) => void): string => {
    const d = structuredClone(doc);
    change(d.entries[0]!);
    try {
      parseMessageCatalogue(JSON.stringify(d), 'x.json');
    } catch (err) {
      return (err as Error).message;
    }
    return 'no error';
  };
  assert.match(
    broken((e) => (e['kind'] = 'bogus')),
    /x\.json: entry xrun-card-device: kind/,
  );
  assert.match(
    broken((e) => (e['anchor'] = 'nowhere')),
    /anchor "nowhere" is not literal/,
  );
  assert.match(
    broken((e) => (e['fields'] = ['card'])),
    /more conversions than fields/,
  );
  assert.match(
    broken((e) => (e['prefixes'] = ['nope'])),
    /unknown prefix "nope"/,
  );
  assert.match(
    broken((e) => (e['provenance'] = 'memory')),
    /provenance must name/,
  );
  assert.match(
    broken((e) => (e['strings'] = { direction: 'colour' })),
    /unknown type/,
  );
  assert.throws(() => parseMessageCatalogue('{', 'y.json'), /y\.json: JSON/);
  const dup = structuredClone(doc);
  dup.entries.push(dup.entries[0]!);
  assert.throws(() => parseMessageCatalogue(JSON.stringify(dup)), /duplicate id/);
});

for (const entry of cat.catalogue.entries) {
  test(`catalogue entry ${entry.id}: every prefix and capture form`, () => {
    const prefixes = ['', ...entry.prefixes.flatMap((p) => PREFIX_SAMPLES[p] ?? [])];
    for (const variant of [false, true]) {
      const msg = sampleMessage(entry, variant);
      const m = matchHeaderText(msg);
      assert.ok(m, `${entry.id}: ${msg}`);
      if (isEvent(entry)) {
        assert.equal(m.state, 'complete', msg);
        if (m.state === 'complete') {
          // Entries with the same format (one per printk helper) may answer for each other.
          const got = cat.catalogue.entries.find((e) => e.id === m.header.entry)!;
          assert.equal(got.format, entry.format, msg);
        }
      } else assert.equal(m.state, 'line', msg);
      for (const pre of prefixes) {
        for (const [form, wrap] of Object.entries(CAPTURE_FORMS)) {
          const line = wrap(pre + msg);
          const r = analyzeText(`random: crng init done\n${line}\nsomething else\n`);
          if (!isEvent(entry)) {
            assert.equal(r.events.length, 0, `${form}: ${line}`);
            continue;
          }
          assert.equal(r.events.length, 1, `${form}: ${line}`);
          const ev = r.events[0]!;
          assert.equal(ev.kind, entry.kind, `${form}: ${line}`);
          assert.equal(ev.line, 2, `${form}: ${line}`);
          assert.equal(ev.pcm, expectedPcm(entry, variant), `${form}: ${line}`);
          assert.equal(ev.header, (pre + msg).trim(), `${form}: ${line}`);
        }
      }
    }
  });
}

test('hw-pointer and invalid-position lines with an empty stream name (no CONFIG_SND_DEBUG)', () => {
  const r = analyzeText(
    [
      'snd_hda_intel 0000:00:1f.3: invalid position: , pos = 4096, buffer size = 4096, period size = 1024',
      'snd_hda_intel 0000:00:1f.3: XRUN: , pos = 8192, buffer size = 4096, period size = 1024',
    ].join('\n'),
  );
  assert.deepEqual(
    r.events.map((e) => [e.kind, e.pcm, e.line]),
    [
      ['invalid_position', null, 1],
      ['invalid_position', null, 2],
    ],
  );
});

test('near misses are not headers', () => {
  for (const body of [
    'XRUN: pcmC0D0p is what aplay reported',
    'snd_usb_audio: XRUN: buffer underrun in some driver text',
    'Lost interrupts? maybe',
    'PCM: Unexpected hw_pointer value',
    'invalid position: the driver said so',
    'hwptr log: pcmC0D0p:0: [Q] j=1, pos=1/2/3, hwptr=4/5',
    'snd_pcm_update_hw_ptr0: 148 callbacks suppressed',
  ])
    assert.notEqual(matchHeaderText(body)?.state, 'complete', body);
});

test('trigger needles: every catalogued message contains one', () => {
  const needles = catalogueTriggerNeedles();
  for (const e of cat.catalogue.entries) {
    const msg = sampleMessage(e, false);
    assert.ok(
      needles.some((n) => msg.includes(n)),
      `${e.id}: "${msg}" has none of ${needles.join(', ')}`,
    );
  }
  // The ALSA file-path prefix alone (first part of a wrapped snd_printk line) has one too.
  assert.ok(needles.includes('ALSA'));
});
