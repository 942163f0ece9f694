import { test } from 'node:test';
import assert from 'node:assert/strict';
import { XrunhuntError } from '../errors.js';
import { filterQuery, parseCount, parseFilter } from './web-query.js';

test('a query string becomes a filter and back, repeated names meaning "any of"', () => {
  const q = new URLSearchParams(
    'kernel=6.1.0-28-amd64&kernel=6.6.63-1-lts&driver=snd_hda_intel&card=HDA+Intel+PCH&backend=kprobe&class=kernel&class=idle&since=2026-03-01&until=2026-04-01T12:00:00Z&preempt=',
  );
  const f = parseFilter(q);
  assert.deepEqual(f, {
    kernelReleases: ['6.1.0-28-amd64', '6.6.63-1-lts'],
    drivers: ['snd_hda_intel'],
    cards: ['HDA Intel PCH'],
    captureBackends: ['kprobe'],
    offenderClasses: ['kernel', 'idle'],
    sinceMs: Date.UTC(2026, 2, 1),
    untilMs: Date.UTC(2026, 3, 1, 12),
  });
  assert.deepEqual(parseFilter(new URLSearchParams(filterQuery(f))), f);
  assert.match(filterQuery(f), /since=2026-03-01&until=2026-04-01T12%3A00%3A00.000Z$/);
  assert.deepEqual(parseFilter(new URLSearchParams('')), {});
});

test('bad values are user errors that say what was expected', () => {
  const bad = (qs: string, re: RegExp): void =>
    assert.throws(
      () => parseFilter(new URLSearchParams(qs)),
      (e: unknown) => e instanceof XrunhuntError && re.test(e.message) && e.hint !== undefined,
    );
  bad('class=kernal', /class=kernal: expected one of kernel, idle, user, none/);
  bad('since=yesterday', /since=yesterday: expected a date like 2026-03-01/);
  bad('until=2026-13-45', /until=2026-13-45/);
  bad(`kernel=${'x'.repeat(301)}`, /at most 300 characters/);
  assert.throws(
    () => parseCount(new URLSearchParams('limit=-3'), 'limit', 50, 1, 500),
    /limit=-3: expected a whole number from 1 to 500/,
  );
  assert.equal(parseCount(new URLSearchParams('limit=7'), 'limit', 50, 1, 500), 7);
  assert.equal(parseCount(new URLSearchParams(''), 'limit', 50, 1, 500), 50);
});
