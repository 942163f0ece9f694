import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JackLogEvent } from './jack-log-line.js';
import {
  jackGapMs,
  joinJackIncidents,
  JACK_LOG_LAG_MS,
  type JackXrunCallback,
  type StampedJackLogEvent,
} from './jack-incidents.js';

const cb = (atMs: number, delayedUs = 20, dspLoadPct = 3): JackXrunCallback => ({
  atMs,
  delayedUs,
  dspLoadPct,
});
const late = (atMs: number, client = 'lateone', state = 'Triggered'): StampedJackLogEvent => ({
  atMs,
  event: { kind: 'client-late', client, state } satisfies JackLogEvent,
});
const driver = (atMs: number, delayUs: number): StampedJackLogEvent => ({
  atMs,
  event: { kind: 'driver-late', delayUs, driver: 'timed' },
});
const opts = { gapMs: jackGapMs(64 / 48), lagMs: JACK_LOG_LAG_MS, logGiven: true };

test('a burst of late cycles is one incident, put down to the client jackd waited for', () => {
  // A 30 ms stall at 64 frames: consecutive cycles 1.33 ms apart, the lines read ~10 ms later.
  const cbs = [0, 1.3, 2.7, 4, 5.3].map((t) => cb(1000 + t, 40, t === 0 ? 4.2 : 58.9));
  const log = [10, 10, 10, 10, 11].map((t, k) =>
    late(1000 + t, 'lateone', k === 0 ? 'Running' : 'Triggered'),
  );
  const [i, ...rest] = joinJackIncidents(cbs, log, opts);
  assert.equal(rest.length, 0);
  assert.equal(i!.attribution, 'client');
  assert.equal(i!.client, 'lateone');
  assert.equal(i!.callbacks, 5);
  assert.deepEqual(i!.lateClients, [
    { client: 'lateone', cycles: 5, states: ['Running', 'Triggered'] },
  ]);
  assert.equal(i!.dspLoadPct, 58.9);
  assert.equal(i!.maxDelayedUs, 40);
  assert.equal(i!.startMs, 1000);
});

test('bursts further apart than the gap are separate incidents; the driver waking late is no client', () => {
  const cbs = [cb(100), cb(500, 91)];
  const log = [late(108), driver(505, 91)];
  const [a, b] = joinJackIncidents(cbs, log, opts);
  assert.equal(a!.attribution, 'client');
  assert.equal(b!.attribution, 'driver');
  assert.equal(b!.driverLateUs, 91);
  assert.equal(b!.client, null);
});

test('lines are paired in order, so a late-read line still lands on its own callback', () => {
  // The line of the xrun at 100 ms was read 75 ms later, after the callback of the next one.
  const cbs = [cb(100), cb(160)];
  const log = [late(175, 'first'), driver(180, 30)];
  const [a, b] = joinJackIncidents(cbs, log, opts);
  assert.equal(a!.client, 'first');
  assert.equal(b!.attribution, 'driver');
});

test('two clients late in one cycle: both named, the one late more often first', () => {
  const cbs = [cb(0), cb(0.1), cb(1.4)];
  const log = [late(5, 'synth'), late(5, 'reverb'), late(6, 'reverb')];
  const [i] = joinJackIncidents(cbs, log, opts);
  assert.deepEqual(
    i!.lateClients.map((c) => [c.client, c.cycles]),
    [
      ['reverb', 2],
      ['synth', 1],
    ],
  );
  assert.equal(i!.client, 'reverb');
});

test('without a log the client is unknown; a log that names nothing leaves it unnamed', () => {
  const [u] = joinJackIncidents([cb(10)], [], { ...opts, logGiven: false });
  assert.equal(u!.attribution, 'unknown');
  assert.equal(u!.client, null);
  const [n] = joinJackIncidents([cb(10)], [], opts);
  assert.equal(n!.attribution, 'unnamed');
});

test('a logged xrun with no callback (the observer missed it) is still an incident, with 0 callbacks', () => {
  const [a, b] = joinJackIncidents([cb(10)], [late(12), late(2000, 'other')], opts);
  assert.equal(a!.callbacks, 1);
  assert.equal(b!.callbacks, 0);
  assert.equal(b!.client, 'other');
  assert.equal(b!.maxDelayedUs, null);
});

test('the gap follows the period: 3 periods, never under 50 ms', () => {
  assert.equal(jackGapMs(64 / 48), 50);
  assert.equal(jackGapMs(2048 / 48), 128);
  assert.equal(jackGapMs(null), 50);
  assert.deepEqual(joinJackIncidents([], [], opts), []);
});
