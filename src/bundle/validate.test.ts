import { test } from 'node:test';
import assert from 'node:assert/strict';
import { XrunhuntError } from '../errors.js';
import { fixtureJson } from './test-fixtures.js';
import { isBundleJson, validateBundle } from './validate.js';

const clone = <T>(v: T): T => structuredClone(v);

function formatError(fn: () => unknown): XrunhuntError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof XrunhuntError, `expected XrunhuntError, got ${String(err)}`);
    assert.equal(err.code, 'format');
    return err;
  }
  assert.fail('expected a format error');
}

test('the hand-made fixtures validate and keep their content', () => {
  const b = validateBundle(fixtureJson('session-ext4-writeback.json'));
  assert.equal(b.formatVersion, 2);
  assert.equal(b.events.length, 4);
  assert.equal(b.events[1]!.offender.signature, '_raw_spin_unlock_irq | __filemap_add_folio');
  assert.equal(b.host.cards[0]!.driver, 'snd_hda_intel');
  const lab = validateBundle(fixtureJson('session-lab-test-lockup.json.gz'));
  assert.equal(lab.offenders[0]!.signature, 'test_unlock');
  assert.equal(lab.offenders[0]!.module, 'test_lockup');
});

test('a wrong field type names the bundle, the path and the value found', () => {
  const doc = fixtureJson('session-ext4-writeback.json');
  const phases = doc['phases'] as Record<string, unknown>[];
  phases[2]!['endMs'] = 'abc';
  const err = formatError(() => validateBundle(doc, 'x.json'));
  assert.equal(err.message, 'bundle x.json: phases[2].endMs: expected a number, found "abc"');
});

test('missing, null and out-of-range values are reported precisely', () => {
  const base = fixtureJson('session-ext4-writeback.json');
  const cases: [(d: Record<string, unknown>) => void, RegExp][] = [
    [
      (d) => delete (d['host'] as Record<string, unknown>)['kernelRelease'],
      /host\.kernelRelease: expected a string, found nothing \(missing\)/,
    ],
    [
      (d) => ((d['host'] as Record<string, unknown>)['preempt'] = 'sometimes'),
      /host\.preempt: expected one of none\|voluntary\|full\|rt\|unknown, found "sometimes"/,
    ],
    [
      (d) => ((d['events'] as Record<string, unknown>[])[0]!['frames'] = [1]),
      /events\[0\]\.frames\[0\]: expected a string, found 1/,
    ],
    [
      (d) => ((d['xruns'] as Record<string, unknown>[])[0]!['kernelEventIndex'] = 9),
      /xruns\[0\]\.kernelEventIndex: expected an index into events \(0\.\.3\), found 9/,
    ],
    [
      (d) => ((d['phases'] as Record<string, unknown>[])[1]!['endMs'] = 5),
      /phases\[1\]\.endMs: expected a time ≥ startMs \(10000\), found 5/,
    ],
    [
      (d) => ((d['offenders'] as Record<string, unknown>[])[0]!['share'] = 3),
      /offenders\[0\]\.share: expected a fraction from 0 to 1, found 3/,
    ],
    [
      (d) => (d['createdAt'] = 'yesterday'),
      /createdAt: expected an ISO 8601 date, found "yesterday"/,
    ],
    [(d) => (d['machineId'] = '../../etc/passwd'), /machineId: expected letters, digits/],
    [(d) => (d['durationMs'] = Number.NaN), /durationMs: expected a number, found NaN/],
    [
      (d) => (d['tool'] = { name: 'other', version: '1' }),
      /tool\.name: expected "xrunhunt", found "other"/,
    ],
  ];
  for (const [mutate, re] of cases) {
    const doc = clone(base);
    mutate(doc);
    assert.match(formatError(() => validateBundle(doc)).message, re);
  }
});

test('not an object, no version, a newer version: each refused with what to do', () => {
  assert.match(
    formatError(() => validateBundle([1, 2])).message,
    /\(top level\): expected an object, found an array of 2/,
  );
  assert.match(
    formatError(() => validateBundle({})).message,
    /formatVersion: expected a whole number from 0 to 2, found nothing/,
  );
  const err = formatError(() => validateBundle(fixtureJson('future-version-7.json'), 'f.json'));
  assert.equal(
    err.message,
    'bundle f.json was written by a newer xrunhunt (formatVersion 7); this version reads up to 2',
  );
  assert.match(err.hint ?? '', /upgrade xrunhunt/);
});

test('a draft v0 bundle is upgraded: same frames and host as its v1 twin', () => {
  const v1 = validateBundle(fixtureJson('session-ext4-writeback.json'));
  const v0 = validateBundle(fixtureJson('session-v0-draft.json'));
  assert.equal(v0.formatVersion, 2);
  assert.equal(v0.host.kernelRelease, v1.host.kernelRelease);
  assert.deepEqual(
    v0.events.map((e) => e.frames),
    v1.events.map((e) => e.frames),
  );
  assert.deepEqual(v0.kernelCapture, { source: 'none', lostMessages: 0 });
  assert.equal(v0.playbackMs, v0.durationMs);
  assert.equal(v0.rulesVersion, '0');
});

test('validation returns a clean copy: unknown fields dropped, input untouched', () => {
  const doc = fixtureJson('session-ext4-writeback.json');
  doc['extra'] = { secret: 1 };
  const before = JSON.stringify(doc);
  const b = validateBundle(doc);
  assert.equal('extra' in b, false);
  assert.equal(JSON.stringify(doc), before);
});

test('a numeric rulesVersion is accepted as its string', () => {
  const doc = fixtureJson('session-ext4-writeback.json');
  doc['rulesVersion'] = 3;
  assert.equal(validateBundle(doc).rulesVersion, '3');
});

test('isBundleJson sniffs bundles and nothing else', () => {
  assert.equal(isBundleJson(JSON.stringify(fixtureJson('session-ext4-writeback.json'))), true);
  assert.equal(isBundleJson('[ 1.234] snd_pcm: XRUN: pcmC0D0p'), false);
  assert.equal(isBundleJson('{"events": []}'), false);
  assert.equal(isBundleJson('{"formatVersion": 1'), false);
});
