import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundleToRows, pcmCardIndex } from './fleet-rows.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

test('pcm names give the card index', () => {
  assert.equal(pcmCardIndex('pcmC1D0p'), 1);
  assert.equal(pcmCardIndex('pcmC12D3c'), 12);
  assert.equal(pcmCardIndex('hw:0'), null);
  assert.equal(pcmCardIndex(null), null);
});

test('events carry their load kind and the driver of the card that raised them', () => {
  const b = validateBundle(fixtureJson('session-ext4-writeback.json'));
  b.host.cards.push({ index: 1, id: 'Headset', driver: 'snd_usb_audio', name: 'USB' });
  b.events[2]!.pcm = 'pcmC1D0p';
  const rows = bundleToRows(b, 'h');
  assert.equal(rows.bundle.drivers, 'snd_hda_intel,snd_usb_audio');
  assert.deepEqual(
    rows.events.map((e) => e.loadKind),
    ['idle', 'write', 'write', 'write'],
  );
  assert.deepEqual(
    rows.events.map((e) => e.driver),
    ['snd_hda_intel', 'snd_hda_intel', 'snd_usb_audio', 'snd_hda_intel'],
  );
  assert.deepEqual(JSON.parse(rows.events[1]!.framesJson), b.events[1]!.frames);
  assert.equal(rows.bundle.createdMs, Date.parse('2026-11-20T18:42:07.311Z'));
});
