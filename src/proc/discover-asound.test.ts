// Discovery against fake /proc trees (test/helpers/fake-proc.ts): real files, kernel layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createFakeSystem, dummyCard, hdaCard } from '../../test/helpers/fake-proc.js';
import { discoverAsound, selectStreams } from './discover-asound.js';

test('finds every stream with card id, name, driver, pcm name, mask and injection files', (t) => {
  const fake = createFakeSystem({ cards: [dummyCard({}, 3), hdaCard({}, 0)] });
  t.after(() => fake.cleanup());
  const d = discoverAsound(fake.procRoot);
  assert.equal(d.present, true);
  assert.deepEqual(d.warnings, []);
  assert.deepEqual(
    d.streams.map((s) => [s.pcm, s.cardId, s.driver, s.pcmName, s.mask, s.substreams.length]),
    [
      ['pcmC0D0c', 'Dummy', 'Dummy', 'Dummy PCM', 3, 1],
      ['pcmC0D0p', 'Dummy', 'Dummy', 'Dummy PCM', 3, 2],
      ['pcmC1D0c', 'PCH', 'HDA-Intel', 'ALC892 Analog', 0, 1],
      ['pcmC1D0p', 'PCH', 'HDA-Intel', 'ALC892 Analog', 0, 1],
      ['pcmC1D3p', 'PCH', 'HDA-Intel', 'HDMI 0', 0, 1],
    ],
  );
  const p = d.streams[1]!;
  assert.equal(p.xrunDebugPath, fake.proc('asound/card0/pcm0p/xrun_debug'));
  assert.equal(p.substreams[1]!.injectionPath, fake.proc('asound/card0/pcm0p/sub1/xrun_injection'));
  assert.equal(p.cardName, 'Dummy');
  // the card-id symlink (/proc/asound/Dummy -> card0) is not a second card
  assert.equal(d.cards.length, 2);
});

test('card numbers sort numerically (card10 after card2)', (t) => {
  const cards = [2, 10].map((index) => dummyCard({ index, id: `C${index}` }));
  const fake = createFakeSystem({ cards });
  t.after(() => fake.cleanup());
  assert.deepEqual(
    discoverAsound(fake.procRoot).cards.map((c) => c.index),
    [2, 10],
  );
});

test('a kernel without xrun_debug: streams listed, no paths, no masks', (t) => {
  const fake = createFakeSystem({ cards: [dummyCard({}, null)] });
  t.after(() => fake.cleanup());
  const d = discoverAsound(fake.procRoot);
  assert.equal(d.streams.length, 2);
  assert.ok(d.streams.every((s) => s.xrunDebugPath === undefined && s.mask === undefined));
  assert.ok(d.streams.every((s) => s.substreams.every((u) => u.injectionPath === undefined)));
});

test('no /proc/asound at all: not present, no warnings', (t) => {
  const fake = createFakeSystem({ asound: false });
  t.after(() => fake.cleanup());
  const d = discoverAsound(fake.procRoot);
  assert.equal(d.present, false);
  assert.deepEqual(d.streams, []);
  assert.deepEqual(d.warnings, []);
});

test('garbage in cards, info and xrun_debug become warnings, not crashes', (t) => {
  const card = dummyCard({}, 'lots of bits\n');
  card.pcms[0]!.info = '\u0000\u0000\u0000';
  const fake = createFakeSystem({ cards: [card], cardsText: 'this is not a cards file\n' });
  t.after(() => fake.cleanup());
  const d = discoverAsound(fake.procRoot);
  assert.equal(d.streams.length, 2);
  const p = d.streams.find((s) => s.pcm === 'pcmC0D0p')!;
  assert.equal(p.mask, undefined);
  assert.match(p.maskError!, /expected an integer, found "lots of bits\\n"/);
  assert.equal(p.cardId, 'Dummy'); // from card0/id even though cards is garbage
  assert.equal(p.pcmName, undefined);
  const w = d.warnings.join('\n');
  assert.match(w, /cards: unrecognised line 1/);
  assert.match(w, /pcm0p\/info: info: no "key: value" lines/);
  assert.match(w, /pcm0p\/xrun_debug: expected an integer/);
});

test('an xrun_debug that is a directory (unreadable) is a warning with the reason', (t) => {
  const fake = createFakeSystem({ cards: [dummyCard({}, null)] });
  t.after(() => fake.cleanup());
  mkdirSync(fake.proc('asound/card0/pcm0p/xrun_debug'));
  const d = discoverAsound(fake.procRoot);
  const p = d.streams.find((s) => s.pcm === 'pcmC0D0p')!;
  assert.equal(p.mask, undefined);
  assert.match(p.maskError!, /is a directory/);
});

test('an unlistable card folder is a warning (non-root only: root bypasses modes)', (t) => {
  const fake = createFakeSystem({ cards: [dummyCard()] });
  t.after(() => fake.cleanup());
  rmSync(fake.proc('asound/card0'), { recursive: true });
  mkdirSync(fake.proc('asound/card0'));
  chmodSync(fake.proc('asound/card0'), 0);
  const d = discoverAsound(fake.procRoot);
  if (process.getuid?.() === 0) assert.equal(d.streams.length, 0);
  else assert.match(d.warnings.join('\n'), /permission denied/);
});

test('selection by --card number or id and by --pcm names', (t) => {
  const fake = createFakeSystem({ cards: [dummyCard(), hdaCard()] });
  t.after(() => fake.cleanup());
  const all = discoverAsound(fake.procRoot).streams;
  assert.deepEqual(
    selectStreams(all, { card: '1' }).map((s) => s.pcm),
    ['pcmC1D0c', 'pcmC1D0p', 'pcmC1D3p'],
  );
  assert.deepEqual(
    selectStreams(all, { card: 'Dummy' }).map((s) => s.pcm),
    ['pcmC0D0c', 'pcmC0D0p'],
  );
  assert.deepEqual(
    selectStreams(all, { pcm: ['pcmC1D3p', 'pcmC0D0p'] }).map((s) => s.pcm),
    ['pcmC0D0p', 'pcmC1D3p'],
  );
  assert.deepEqual(selectStreams(all, { card: 'Nope' }), []);
});
