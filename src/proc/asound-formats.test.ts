import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseCardsList,
  parsePcmInfo,
  parsePcmName,
  parseSubstreamStatus,
  parseXrunDebugValue,
} from './asound-formats.js';

test('cards list: index, id, driver, short and long names', () => {
  const text = String.raw` 0 [Dummy          ]: Dummy - Dummy
                      Dummy 1
 1 [PCH            ]: HDA-Intel - HDA Intel PCH
                      HDA Intel PCH at 0xf7f10000 irq 33
`;
  const { cards, warnings } = parseCardsList(text);
  assert.deepEqual(warnings, []);
  assert.deepEqual(cards, [
    { index: 0, id: 'Dummy', driver: 'Dummy', shortName: 'Dummy', longName: 'Dummy 1' },
    {
      index: 1,
      id: 'PCH',
      driver: 'HDA-Intel',
      shortName: 'HDA Intel PCH',
      longName: 'HDA Intel PCH at 0xf7f10000 irq 33',
    },
  ]);
});

test('cards list: "no soundcards" is empty, garbage is a warning not a crash', () => {
  assert.deepEqual(parseCardsList('--- no soundcards ---\n'), { cards: [], warnings: [] });
  const r = parseCardsList('\u0000\u0001garbage\n 2 [X]: drv - Short\n');
  assert.equal(r.cards.length, 1);
  assert.equal(r.cards[0]!.index, 2);
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0]!, /line 1/);
});

test('pcm info: stream and name; garbage gives undefined fields and a warning', () => {
  const { info } = parsePcmInfo(
    'card: 0\ndevice: 3\nsubdevice: 0\nstream: PLAYBACK\nid: HDMI 0\nname: HDMI 0\nsubdevices_count: 1\n',
  );
  assert.deepEqual(info, {
    card: 0,
    device: 3,
    stream: 'playback',
    id: 'HDMI 0',
    name: 'HDMI 0',
    subdevicesCount: 1,
  });
  const bad = parsePcmInfo('\xff\xfe binary junk');
  assert.equal(bad.info.stream, undefined);
  assert.equal(bad.warnings.length, 1);
});

test('substream status: closed, and open with owner_pid (padded keys)', () => {
  assert.deepEqual(parseSubstreamStatus('closed\n'), {
    open: false,
    state: undefined,
    ownerPid: undefined,
  });
  const open = parseSubstreamStatus(
    'state: RUNNING\nowner_pid   : 1234\ntrigger_time: 12.5\ntstamp      : 0.0\ndelay       : 128\n-----\nhw_ptr      : 4096\n',
  );
  assert.deepEqual(open, { open: true, state: 'RUNNING', ownerPid: 1234 });
  // pre-4.x kernels: no owner_pid line
  assert.deepEqual(parseSubstreamStatus('state: PREPARED\n'), {
    open: true,
    state: 'PREPARED',
    ownerPid: undefined,
  });
});

test('xrun_debug values: integers only', () => {
  assert.equal(parseXrunDebugValue('3\n'), 3);
  assert.equal(parseXrunDebugValue('0'), 0);
  assert.equal(parseXrunDebugValue('three\n'), undefined);
  assert.equal(parseXrunDebugValue('-1\n'), undefined);
  assert.equal(parseXrunDebugValue(''), undefined);
});

test('pcm names', () => {
  assert.deepEqual(parsePcmName('pcmC1D3c'), { card: 1, device: 3, stream: 'capture' });
  assert.equal(parsePcmName('pcm0p'), undefined);
});
