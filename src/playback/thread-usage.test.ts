import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffThreadUsage, parseThreadStat, readThreadUsage } from './thread-usage.js';

// A real line from /proc/<pid>/task/<tid>/stat of a node worker (Linux 6.x), comm with a space.
const LINE =
  '25804 (node worker) S 1 25785 25785 0 -1 4194368 1234 0 2 0 350 41 0 0 -71 0 17 0 89633 1207631872 12345 18446744073709551615 1 1 0 0 0 0 0 4096 134234626 0 0 0 -1 1 70 1 0 0 0';

test('parses faults and CPU ticks after the comm field', () => {
  assert.deepEqual(parseThreadStat(LINE), { cpuMs: 3910, minorFaults: 1234, majorFaults: 2 });
  assert.equal(parseThreadStat('garbage'), null);
});

test('differences between two readings', () => {
  assert.deepEqual(
    diffThreadUsage(
      { cpuMs: 10, minorFaults: 5, majorFaults: 0 },
      { cpuMs: 30, minorFaults: 9, majorFaults: 1 },
    ),
    { cpuMs: 20, minorFaults: 4, majorFaults: 1 },
  );
  assert.equal(diffThreadUsage(null, { cpuMs: 1, minorFaults: 1, majorFaults: 1 }), null);
});

test('reads this thread for real', () => {
  const u = readThreadUsage();
  assert.ok(u && u.minorFaults > 0);
  assert.equal(
    readThreadUsage(() => {
      throw new Error('ENOENT');
    }),
    null,
  );
});
