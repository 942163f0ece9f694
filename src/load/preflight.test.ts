import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError, XrunhuntError } from '../errors.js';
import { preflightLoad, validateLoadOptions, type MachineProbe } from './preflight.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

// A stand-in machine (a mock: the real statfs and meminfo are exercised by the e2e tests).
function mockMachine(over: Partial<MachineProbe> = {}): MachineProbe {
  return {
    statfs: () => Promise.resolve({ totalBytes: 100 * GiB, availableBytes: 50 * GiB }),
    meminfo: () => Promise.resolve({ totalBytes: 8 * GiB, availableBytes: 6 * GiB }),
    cores: () => 4,
    isRoot: () => false,
    which: (cmd) => Promise.resolve(cmd === 'stress-ng' ? '/usr/bin/stress-ng' : undefined),
    ...over,
  };
}

test('options that make no sense are usage errors before anything is checked', () => {
  const bad: [Parameters<typeof validateLoadOptions>, RegExp][] = [
    [['write', { durationMs: 0 }], /invalid duration 0 ms/],
    [['write', { durationMs: 25 * 3_600_000 }], /at most 24h/],
    [['cpu', { durationMs: 1000, workers: 0 }], /invalid --workers 0/],
    [['write', { durationMs: 1000, sizeBytes: 0 }], /invalid --size 0 bytes/],
    [['external', { durationMs: 1000 }], /needs a command after --/],
    [['cpu', { durationMs: 1000, command: ['true'] }], /applies only to "load external"/],
    [
      ['write', { durationMs: 1000, dropCaches: true }],
      /--drop-caches applies only to the read load/,
    ],
  ];
  for (const [args, message] of bad) {
    assert.throws(
      () => validateLoadOptions(...args),
      (err: unknown) => err instanceof UsageError && message.test(err.message),
    );
  }
});

test('defaults come from the kind: cores for cpu and fork, sizes for disk kinds, half the safe memory', async () => {
  const m = mockMachine();
  assert.equal((await preflightLoad('cpu', { durationMs: 1000 }, m)).workers, 4);
  assert.equal((await preflightLoad('fork', { durationMs: 1000 }, m)).workers, 4);
  const w = await preflightLoad('write', { durationMs: 1000, dir: '/scratch' }, m);
  assert.deepEqual(
    [w.workers, w.sizeBytes, w.parentDir, w.minFreeBytes],
    [1, 1024 * MiB, '/scratch', 10 * GiB],
  );
  // memory: (6 GiB available − max(10% of 8 GiB, 512 MiB)) / 2
  const mem = await preflightLoad('memory', { durationMs: 1000 }, m);
  assert.equal(mem.sizeBytes, Math.floor((6 * GiB - 0.8 * GiB) / 2));
  assert.equal((await preflightLoad('idle', { durationMs: 1000 }, m)).workers, 0);
});

test('the disk floor and memory limits refuse; --min-free moves the floor', async () => {
  const m = mockMachine({
    statfs: () => Promise.resolve({ totalBytes: 20 * GiB, availableBytes: 3 * GiB }),
  });
  await assert.rejects(
    preflightLoad('write', { durationMs: 1000, sizeBytes: 2 * GiB }, m),
    /not enough free space/,
  );
  const ok = await preflightLoad(
    'write',
    { durationMs: 1000, sizeBytes: 2 * GiB, minFreeBytes: 512 * MiB },
    m,
  );
  assert.equal(ok.minFreeBytes, 512 * MiB);
  await assert.rejects(
    preflightLoad('memory', { durationMs: 1000, sizeBytes: 6 * GiB }, m),
    /not enough free memory/,
  );
});

test('--drop-caches needs root; an external command must exist', async () => {
  await assert.rejects(
    preflightLoad('read', { durationMs: 1000, dropCaches: true }, mockMachine()),
    (err: unknown) =>
      err instanceof XrunhuntError && err.code === 'permission' && /needs root/.test(err.message),
  );
  const asRoot = await preflightLoad(
    'read',
    { durationMs: 1000, dropCaches: true },
    mockMachine({ isRoot: () => true }),
  );
  assert.equal(asRoot.dropCaches, true);
  await assert.rejects(
    preflightLoad('external', { durationMs: 1000, command: ['fio', 'x.fio'] }, mockMachine()),
    /command not found: "fio"/,
  );
  const ext = await preflightLoad(
    'external',
    { durationMs: 1000, command: ['stress-ng', '--io', '2'], outputPath: 'out.log' },
    mockMachine(),
  );
  assert.deepEqual(ext.command, ['stress-ng', '--io', '2']);
  assert.ok(ext.outputPath?.startsWith('/') && ext.outputPath.endsWith('/out.log'));
});

test('a folder that does not exist is named in the error', async () => {
  const m = mockMachine({
    statfs: () => Promise.reject(Object.assign(new Error('x'), { code: 'ENOENT' })),
  });
  await assert.rejects(
    preflightLoad('write', { durationMs: 1000, dir: '/nope' }, m),
    /cannot use \/nope for the load: it does not exist/,
  );
});
