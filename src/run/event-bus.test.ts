// The generic run bus: bounded catch-up history (header events kept, the oldest others
// dropped and counted), delivery order, the terminal event, a throwing listener.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from './event-bus.js';

type E =
  | { type: 'start'; timeMs: number }
  | { type: 'tick'; timeMs: number; n: number }
  | { type: 'end'; timeMs: number };

const bus = (cap: number) =>
  new EventBus<E>({ terminal: 'end', headerTypes: ['start'], historyCap: cap });

test('history keeps the header and the newest `cap` others, in emission order, counting drops', () => {
  const b = bus(3);
  b.emit({ type: 'start', timeMs: 5 });
  for (let n = 0; n < 10; n++) b.emit({ type: 'tick', timeMs: n, n });
  assert.deepEqual(
    b.history.map((e) => (e.type === 'tick' ? e.n : e.type)),
    ['start', 7, 8, 9],
  );
  assert.equal(b.droppedFromHistory, 7);
});

test('a second header event is an ordinary event; a header after others stays in place', () => {
  const b = bus(10);
  b.emit({ type: 'tick', timeMs: 0, n: 1 });
  b.emit({ type: 'start', timeMs: 0 });
  b.emit({ type: 'start', timeMs: 0 });
  b.emit({ type: 'tick', timeMs: 0, n: 2 });
  assert.deepEqual(
    b.history.map((e) => (e.type === 'tick' ? e.n : e.type)),
    [1, 'start', 'start', 2],
  );
});

test('nothing after the terminal event; iteration replays history and ends; a throwing listener is contained', async () => {
  const b = bus(100);
  const seen: string[] = [];
  b.on(() => {
    throw new Error('broken observer');
  });
  b.on((e) => seen.push(e.type));
  b.emit({ type: 'start', timeMs: 0 });
  const it = (async () => {
    const got: string[] = [];
    for await (const e of b) got.push(e.type);
    return got;
  })();
  b.emit({ type: 'tick', timeMs: 1, n: 0 });
  b.emit({ type: 'end', timeMs: 2 });
  b.emit({ type: 'tick', timeMs: 3, n: 1 });
  assert.deepEqual(await it, ['start', 'tick', 'end']);
  assert.deepEqual(seen, ['start', 'tick', 'end']);
  assert.equal(b.isEnded, true);
});
