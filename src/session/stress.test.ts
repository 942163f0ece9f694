import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cellNeeded,
  parseLoadList,
  parsePeriodList,
  renderStressText,
  summarizeStress,
  type StressCell,
  stressJunitCases,
} from './stress.js';

const cell = (load: string, periodFrames: number, xruns: number | null): StressCell => ({
  load,
  periodFrames,
  xruns,
  xrunsPerMin: xruns,
  kernelEvents: 0,
  topOffender: null,
  durationMs: xruns === null ? null : 1000,
  note: null,
});

test('period and load lists are parsed, sorted and checked', () => {
  assert.deepEqual(parsePeriodList('256, 64,128,64'), [64, 128, 256]);
  assert.throws(() => parsePeriodList('64,,128'), /invalid --periods/);
  assert.throws(() => parsePeriodList('8'), /from 16/);
  assert.deepEqual(parseLoadList('idle,write'), ['idle', 'write']);
  assert.throws(() => parseLoadList('external'), /invalid --loads entry "external"/);
});

test('the buffer grows until a run passes, then larger periods are skipped', () => {
  const cells = [cell('write', 64, 9)];
  assert.equal(cellNeeded(cells, 'write', false), true);
  cells.push(cell('write', 128, 0));
  assert.equal(cellNeeded(cells, 'write', false), false);
  assert.equal(cellNeeded(cells, 'write', true), true, '--all runs everything');
  assert.equal(cellNeeded(cells, 'idle', false), true);
});

test('the summary names the smallest xrun-free period per load and exits 2 when one has none', () => {
  const s = summarizeStress(
    [64, 128, 256],
    ['idle', 'write'],
    [
      cell('idle', 64, 0),
      cell('idle', 128, null),
      cell('idle', 256, null),
      cell('write', 64, 12),
      cell('write', 128, 3),
      cell('write', 256, 1),
    ],
  );
  assert.deepEqual(s.smallestXrunFree, { idle: 64, write: null });
  assert.equal(s.exitCode, 2);
  const text = renderStressText(s, 48000, 2);
  assert.match(text, /idle\s+0\s+·\s+·\s+64/);
  assert.match(text, /write\s+12\s+3\s+1\s+none/);
  assert.match(text, /write: xruns at every period tried/);
  const ok = summarizeStress([64], ['idle'], [cell('idle', 64, 0)]);
  assert.equal(ok.exitCode, 0);
});

test('stress JUnit cases: failed with xruns and the top offender, skipped above a passing period, error when a cell failed', () => {
  const cell = (
    periodFrames: number,
    xruns: number | null,
    note: string | null,
    top: string | null = null,
  ) => ({
    load: 'write',
    periodFrames,
    xruns,
    xrunsPerMin: null,
    kernelEvents: xruns,
    topOffender: top,
    durationMs: xruns === null ? null : 5000,
    note,
  });
  const s = summarizeStress(
    [32, 64, 128, 256],
    ['write'],
    [
      cell(32, null, 'cannot open device'),
      cell(64, 4, null, 'ext4_finish_bio'),
      cell(128, 0, null),
      cell(256, null, null),
    ],
  );
  const cases = stressJunitCases(s);
  assert.deepEqual(
    cases.map((c) => [c.name, c.failure?.message ?? null, c.skipped, c.error]),
    [
      ['write @ period 32', null, null, 'cannot open device'],
      [
        'write @ period 64',
        '4 xrun(s) with write at period 64; top offender ext4_finish_bio',
        null,
        null,
      ],
      ['write @ period 128', null, null, null],
      ['write @ period 256', null, 'a smaller period already ran without xruns', null],
    ],
  );
});
