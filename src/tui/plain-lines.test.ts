import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionEventBus } from '../session/events.js';
import { followPlain, formatPlainLine } from './plain-lines.js';
import { sampleEvents } from '../../test/tui/sample-events.js';

test('one line per telling event, timestamped with the session clock', () => {
  const lines = sampleEvents()
    .map((e) => formatPlainLine(e, null))
    .filter((l): l is string => l !== null);
  assert.ok(lines[0]!.startsWith('[0:00] session on plug:jack, 48000 Hz, period 64 frames × 2'));
  assert.ok(lines.includes('[0:04] XRUN #1 during idle, stopped 1.3 ms'));
  assert.ok(lines.includes('[0:12] kernel xrun pcmC0D0p: __filemap_add_folio (xrun #2)'));
  assert.ok(lines.includes('[0:33] kernel xrun pcmC0D0p: ext4_da_write_end [ext4] (xrun #4)'));
  assert.ok(lines.includes('[0:10] phase idle done: 1 xrun'));
  assert.ok(lines.some((l) => l.startsWith('[0:42] 5 xruns, 3 kernel events, headroom min 42 µs')));
  for (const l of lines) assert.ok(!l.includes('\x1b'), 'no escape sequences');
});

test('stats lines are thinned to one per 10 s', () => {
  const stats = (timeMs: number) =>
    ({
      type: 'stats',
      timeMs,
      elapsedMs: timeMs,
      xruns: 0,
      kernelEvents: 0,
      headroom: null,
      phase: null,
      load: null,
      loadPaused: false,
    }) as const;
  assert.equal(formatPlainLine(stats(15_000), 10_000), null);
  assert.notEqual(formatPlainLine(stats(20_000), 10_000), null);
});

test('followPlain prints the history, then live events, until unsubscribed', () => {
  const bus = new SessionEventBus();
  const [first, ...rest] = sampleEvents();
  bus.emit(first!);
  const out: string[] = [];
  const off = followPlain(bus, (l) => out.push(l));
  assert.equal(out.length, 1);
  for (const e of rest.slice(0, 3)) bus.emit(e);
  off();
  bus.emit({ type: 'warning', timeMs: 1, message: 'not printed' });
  assert.equal(out.length, 4);
  assert.ok(out.every((l) => l.endsWith('\n')));
});
