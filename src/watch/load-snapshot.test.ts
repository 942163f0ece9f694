import { test } from 'node:test';
import assert from 'node:assert/strict';
import { busiestProcesses, describeLoad, loadSnapshot, USER_HZ } from './load-snapshot.js';
import type { ProcStat } from './stream-proc-formats.js';

const stat = (pid: number, comm: string, cpu: number, sys: number): [number, ProcStat] => [
  pid,
  { pid, comm, state: 'R', cpuTicks: cpu, systemTicks: sys },
];

test('busiest processes over an interval: deltas in % of one CPU, new processes counted whole', () => {
  const before = new Map([
    stat(1, 'systemd', 10, 5),
    stat(50, 'dd', 1000, 900),
    stat(60, 'idle', 5, 0),
  ]);
  const after = new Map([
    stat(1, 'systemd', 11, 5),
    stat(50, 'dd', 1000 + USER_HZ * 0.9, 900 + USER_HZ * 0.8), // 90 % over 1 s, 80 % system
    stat(60, 'idle', 5, 0), // did nothing: left out
    stat(70, 'insmod', USER_HZ * 0.5, USER_HZ * 0.5), // born in the interval
  ]);
  assert.deepEqual(busiestProcesses(before, after, 1000), [
    { pid: 50, comm: 'dd', cpuPct: 90, systemPct: 80 },
    { pid: 70, comm: 'insmod', cpuPct: 50, systemPct: 50 },
    { pid: 1, comm: 'systemd', cpuPct: 1, systemPct: 0 },
  ]);
});

test('a reused pid (different comm) counts from zero; no baseline or no interval gives nothing', () => {
  const before = new Map([stat(5, 'old', 5000, 0)]);
  const after = new Map([stat(5, 'new', 20, 10)]);
  assert.deepEqual(busiestProcesses(before, after, 1000), [
    { pid: 5, comm: 'new', cpuPct: 20, systemPct: 10 },
  ]);
  assert.deepEqual(busiestProcesses(new Map(), after, 1000), []);
  assert.deepEqual(busiestProcesses(before, after, 0), []);
});

test('one line describing the load; missing parts are left out', () => {
  const s = loadSnapshot({
    loadavg: { one: 1.2, five: 1, fifteen: 1, running: 2, total: 100 },
    pressure: { io: { someAvg10: 12.4, fullAvg10: 3, someTotalUs: 1 } },
    busiest: [{ pid: 50, comm: 'dd', cpuPct: 90, systemPct: 80 }],
    intervalMs: 1000,
  });
  assert.equal(describeLoad(s), 'load 1.20 · io 12% · busiest: dd 90% (sys 80%)');
  assert.equal(describeLoad(null), 'load unknown');
  assert.equal(
    loadSnapshot({ loadavg: undefined, pressure: {}, busiest: [], intervalMs: 0 }).pressure,
    null,
  );
});
