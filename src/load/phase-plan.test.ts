import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../errors.js';
import { parsePhasePlan, phaseAt, phasePlanDurationMs } from './phase-plan.js';

test('a plan becomes consecutive phases with start and end offsets', () => {
  const plan = parsePhasePlan('idle:10s,write:30s,metadata:500ms');
  assert.deepEqual(
    plan.map((p) => [p.kind, p.durationMs, p.startMs, p.endMs]),
    [
      ['idle', 10_000, 0, 10_000],
      ['write', 30_000, 10_000, 40_000],
      ['metadata', 500, 40_000, 40_500],
    ],
  );
  assert.equal(phasePlanDurationMs(plan), 40_500);
  assert.equal(plan[0]!.options, undefined);
});

test('per-phase options are parsed with units', () => {
  const [w, r, e] = parsePhasePlan(
    ' write:1m:size=256M:workers=2 , read:20s:drop-caches, external:5s:cmd=stress-ng --io 2',
  );
  assert.deepEqual(w!.options, { sizeBytes: 256 * 1024 ** 2, workers: 2 });
  assert.equal(w!.durationMs, 60_000);
  assert.deepEqual(r!.options, { dropCaches: true });
  assert.deepEqual(e!.options, { command: ['stress-ng', '--io', '2'] });
});

test('phaseAt finds the phase covering an offset; ends are exclusive', () => {
  const plan = parsePhasePlan('idle:1s,cpu:2s');
  assert.equal(phaseAt(plan, 0)?.kind, 'idle');
  assert.equal(phaseAt(plan, 999)?.kind, 'idle');
  assert.equal(phaseAt(plan, 1000)?.kind, 'cpu');
  assert.equal(phaseAt(plan, 3000), undefined);
});

const bad: [string, RegExp][] = [
  ['idle:10s,wirte:30s', /at "wirte:30s": unknown load "wirte"; known: idle, write,/],
  ['write', /at "write": missing duration after "write"/],
  ['write:30x', /at "write:30x": invalid duration "30x"/],
  ['write:0s', /at "write:0s": duration must be more than 0/],
  ['idle:1s,,cpu:1s', /at "": empty phase/],
  ['write:1s:size=lots', /at "write:1s:size=lots": invalid size "lots"/],
  ['write:1s:colour=red', /unknown option "colour"; known: size, workers, drop-caches, cmd/],
  ['cpu:1s:workers=0', /invalid workers 0: expected a value from 1 to 256/],
  ['external:1s', /external phase needs its command/],
  ['cpu:1s:cmd=true', /cmd= applies only to external phases/],
  ['', /empty phase plan/],
];
for (const [plan, message] of bad) {
  test(`bad plan ${JSON.stringify(plan)} is a UsageError pointing at the bad part`, () => {
    assert.throws(
      () => parsePhasePlan(plan),
      (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.match(err.message, message);
        return true;
      },
    );
  });
}

test('a phase becomes a load with its own kind, duration and options over the base options', async () => {
  const { createPhaseLoad } = await import('./create-load.js');
  const [phase] = parsePhasePlan('cpu:1s:workers=3');
  const load = createPhaseLoad(phase!, { dir: '/tmp', workers: 1 });
  assert.equal(load.kind, 'cpu');
  assert.deepEqual(load.stats(), {
    kind: 'cpu',
    seconds: 0,
    bytes: 0,
    mbPerSec: 0,
    ops: 0,
    opsPerSec: 0,
    opsUnit: 'hash',
    workers: 0,
  });
  assert.throws(() => createPhaseLoad({ ...phase!, durationMs: 0 }), /invalid duration 0 ms/);
});
