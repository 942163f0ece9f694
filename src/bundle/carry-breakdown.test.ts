// Format 2's breakdowns and detections: real recorder breakdowns (the lab captures of
// test/fixtures/recorder/) carried into a bundle, checked by the one validator, hashed, scrubbed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { BreakdownClass, BreakdownPart } from '../recorder/breakdown-types.js';
import { buildV2Fixture, fixtureExplanation, recorderBreakdown } from './breakdown-fixtures.js';
import { matchBreakdowns, MATCH_WINDOW_S, toBundleBreakdown } from './carry-breakdown.js';
import { bundleHash, usesFormat2 } from './content-hash.js';
import { scrubBundle } from './scrub.js';
import {
  BREAKDOWN_CLASSES,
  MAX_PARTS,
  type BundleBreakdownClass,
  type BundleBreakdownPart,
} from './schema-breakdown.js';
import { FIXTURE_DIR, fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

// The bundle's words are the recorder's words: a class or part kind added on one side only
// fails to compile here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const classesAgree: Same<BreakdownClass, BundleBreakdownClass> = true;
const kindsAgree: Same<BreakdownPart['kind'], BundleBreakdownPart['kind']> = true;

type Doc = Record<string, unknown> & { events: Record<string, unknown>[] };
const v2Doc = (): Doc => fixtureJson('../bundles-format-2/session-v2-breakdown.json') as Doc;
const firstBreakdown = (d: Doc) =>
  d.events[1]!['breakdown'] as { latenessMs: number; parts: Record<string, unknown>[] };

test('the format 2 fixture is what the recorder breakdowns make of the ext4 bundle, and validates', () => {
  assert.ok(classesAgree && kindsAgree);
  const built = buildV2Fixture();
  const file = readFileSync(
    new URL('../bundles-format-2/session-v2-breakdown.json', FIXTURE_DIR),
    'utf8',
  );
  assert.equal(file, `${JSON.stringify(built, null, 2)}\n`, 'regenerate with buildV2Fixture()');
  const b = validateBundle(v2Doc());
  assert.equal(b.formatVersion, 2);
  assert.deepEqual(
    b.events.map((e) => e.breakdown?.cls ?? null),
    [null, 'blocked-by-task', 'irq-latency', 'blocked-by-task'],
  );
  assert.equal(b.events[3]!.offender.class, 'detector-only');
  assert.deepEqual(b.events[3]!.detection?.task, { comm: 'pipewire', pid: 1234 });
  assert.equal(b.breakdown?.unmatched.length, 1);
  assert.deepEqual(b.breakdown?.byClass, { 'irq-latency': 2, 'blocked-by-task': 2 });
  // The first blocker of the writer-blocked XRUN is cat (pid 178, prio 120), as the recorder said.
  const cat = b.events[1]!.breakdown!.parts[0]!;
  assert.deepEqual([cat.kind, cat.name, cat.pid, cat.prio], ['task', 'cat', 178, 120]);
  assert.deepEqual(BREAKDOWN_CLASSES.length, 5);
});

test('a v1 bundle read as v2 keeps its v1 hash; one that carries a breakdown hashes its v2 text', () => {
  const v1 = validateBundle(fixtureJson('session-ext4-writeback.json'));
  assert.equal(v1.formatVersion, 2);
  assert.equal(usesFormat2(v1), false);
  // Written again by this version (formatVersion 2, nothing new): still the same bundle.
  const rewritten = validateBundle(JSON.parse(JSON.stringify(v1)) as unknown);
  assert.equal(bundleHash(rewritten), bundleHash(v1));
  const v2 = validateBundle(v2Doc());
  assert.equal(usesFormat2(v2), true);
  assert.notEqual(bundleHash(v2), bundleHash(v1));
  // Key order and indentation do not matter: the validator rebuilds the canonical text.
  const reversed = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(reversed)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, x]) => [k, reversed(x)]),
          )
        : v;
  assert.equal(bundleHash(validateBundle(reversed(v2Doc()))), bundleHash(v2));
});

test('a breakdown whose parts add up to more than its lateness + 5 % is refused, saying where and why', () => {
  const d = v2Doc();
  const bd = firstBreakdown(d);
  bd.parts[0]!['ms'] = (bd.parts[0]!['ms'] as number) + bd.latenessMs * 0.1;
  assert.throws(
    () => validateBundle(d, 'x.json'),
    /bundle x\.json: events\[1\]\.breakdown\.parts: expected parts whose ms add up to at most latenessMs \+ 5 % \([\d.]+ ms\), found [\d.]+/,
  );
  // Within 5 %: rounding and nested handlers, accepted.
  const ok = v2Doc();
  const okBd = firstBreakdown(ok);
  okBd.parts[0]!['ms'] = (okBd.parts[0]!['ms'] as number) + okBd.latenessMs * 0.04;
  assert.equal(validateBundle(ok).events[1]!.breakdown!.cls, 'blocked-by-task');
});

test('negative parts, too many parts, too long stacks and names are refused with the bound', () => {
  const cases: [(d: Doc) => void, RegExp][] = [
    [
      (d) => (firstBreakdown(d).parts[1]!['ms'] = -0.2),
      /parts\[1\]\.ms: expected a number ≥ 0, found -0\.2/,
    ],
    [
      (d) => {
        const bd = firstBreakdown(d);
        bd.parts = Array.from({ length: MAX_PARTS + 1 }, () => ({ ...bd.parts[0]!, ms: 0 }));
      },
      /breakdown\.parts: expected at most 24 items \(the format's bound\), found an array of 25/,
    ],
    [
      (d) => (firstBreakdown(d).parts[0]!['stack'] = Array.from({ length: 65 }, () => 'f')),
      /parts\[0\]\.stack: expected at most 64 items/,
    ],
    [
      (d) => (firstBreakdown(d).parts[0]!['name'] = 'x'.repeat(257)),
      /parts\[0\]\.name: expected a string of at most 256 characters/,
    ],
    [
      (d) => (d.events[1]!['breakdown'] = { ...firstBreakdown(d), cls: 'bad-luck' }),
      /events\[1\]\.breakdown\.cls: expected one of irq-latency\|blocked-by-task\|interference\|woken-late\|application-late, found "bad-luck"/,
    ],
  ];
  for (const [mutate, expected] of cases) {
    const d = v2Doc();
    mutate(d);
    assert.throws(() => validateBundle(d), expected);
  }
});

test('toBundleBreakdown keeps the largest parts within the bound; the result validates', () => {
  const b = recorderBreakdown('threadirqs-irq-writer-blocked.txt', 8.572607);
  const many = {
    ...b,
    parts: Array.from({ length: 30 }, (_, i) => ({ ...b.parts[0]!, ms: i / 1000, share: 0 })),
  };
  const out = toBundleBreakdown(many);
  assert.equal(out.parts.length, MAX_PARTS);
  assert.equal(out.parts[0]!.ms, 0.029);
  assert.equal(out.parts.at(-1)!.ms, 0.006);
  const d = v2Doc();
  d.events[1]!['breakdown'] = out;
  assert.equal(validateBundle(d).events[1]!.breakdown!.parts.length, MAX_PARTS);
});

test('matchBreakdowns pairs each breakdown with the nearest XRUN event on the monotonic clock', () => {
  const x = fixtureExplanation(); // hits at 8.572607, 10.115265, 8.750127, 7.075998
  const offsetNs = -1000e9; // kernel log clock runs 1000 s ahead of CLOCK_MONOTONIC here
  const events = [
    { kind: 'xrun', time: 1008.5726 },
    { kind: 'hw_ptr_error', time: 1010.115265 },
    { kind: 'xrun', time: 1010.1153 },
    { kind: 'xrun', time: 1008.7501 + MATCH_WINDOW_S * 2 }, // too far from 8.750127
    { kind: 'xrun', time: null },
  ];
  assert.deepEqual(matchBreakdowns(events, x.breakdowns, offsetNs), [0, null, 1, null, null]);
  assert.deepEqual(matchBreakdowns(events, x.breakdowns, null), [null, null, null, null, null]);
  // Two events near one hit: the nearer takes it, the other stays without.
  assert.deepEqual(
    matchBreakdowns(
      [
        { kind: 'xrun', time: 1008.5746 },
        { kind: 'xrun', time: 1008.5727 },
      ],
      x.breakdowns,
      offsetNs,
    ),
    [null, 0],
  );
});

test('scrubbing covers the new strings: comm names, stacks, detection tasks', () => {
  const d = v2Doc();
  const bd = firstBreakdown(d);
  bd.parts[0]!['name'] = 'alice-laptop';
  bd.parts[0]!['stack'] = ['ext4_write [alice-laptop]', 'vfs_write'];
  d.events[3]!['detection'] = {
    context: 'process',
    task: { comm: 'alice-laptop', pid: 7 },
    evidence: 'stack',
  };
  const clean = scrubBundle(validateBundle(d), { hostnames: ['alice-laptop'], users: [] });
  const text = JSON.stringify(clean);
  assert.equal(text.includes('alice-laptop'), false);
  assert.equal(clean.events[1]!.breakdown!.parts[0]!.name, '<host>');
  assert.equal(validateBundle(JSON.parse(text) as unknown).scrubbed, true);
});

test("an application-late breakdown's own sleep (ground truth 4) reaches the bundle and validates", () => {
  const doc = v2Doc();
  const own = { ms: 20.03, wokenBy: 'hrtimer_wakeup', wokeAfterHit: true, askedMs: 20 };
  const source = recorderBreakdown('threadirqs-irq-writer-blocked.txt', 8.572607);
  const carried = toBundleBreakdown({ ...source, cls: 'application-late', ownSleep: own });
  assert.deepEqual(carried.ownSleep, own);
  doc.events[1]!['breakdown'] = carried;
  const b = validateBundle(doc);
  assert.deepEqual(b.events[1]!.breakdown?.ownSleep, own);
  // A negative sleep is refused by the schema, not carried.
  doc.events[1]!['breakdown'] = { ...carried, ownSleep: { ...own, ms: -1 } };
  assert.throws(() => validateBundle(doc), /ownSleep/);
});
