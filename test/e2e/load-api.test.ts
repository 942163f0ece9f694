// The load API as a session uses it: createLoad + start(signal) + live stats() + onSample,
// with real worker processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLoad,
  createPhaseLoad,
  parsePhasePlan,
  type LoadSample,
} from '../../src/load/index.js';

test('live stats grow while the load runs; samples arrive each second and add up to at most the total', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'xrh-load-api-'));
  try {
    const samples: LoadSample[] = [];
    const load = createLoad('metadata', {
      durationMs: 4000,
      dir,
      sizeBytes: 4 * 1024 ** 2,
      onSample: (s) => samples.push(s),
    });
    assert.equal(load.stats().bytes, 0);
    const running = load.start();
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 500));
      seen.push(load.stats().ops ?? 0);
    }
    const final = await running;
    assert.ok(seen.at(-1)! > 0, `live ops ${seen.join(',')}`);
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      seen,
      'live counters never go back',
    );
    assert.ok(samples.length >= 1, 'at least one per-second sample');
    assert.ok(samples.every((s) => s.kind === 'metadata' && s.ops > 0));
    assert.ok(samples.reduce((a, s) => a + s.ops, 0) <= final.ops!);
    assert.deepEqual(load.stats(), final, 'after the end, stats() is the final figure');
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('aborting the signal stops the workers within the stop margin and removes the folder', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'xrh-load-api-'));
  try {
    const [phase] = parsePhasePlan('write:60s:size=64M');
    const load = createPhaseLoad(phase!, { dir });
    const controller = new AbortController();
    const running = load.start(controller.signal);
    await new Promise((r) => setTimeout(r, 2500));
    const t0 = Date.now();
    controller.abort();
    const final = await running;
    assert.equal(final.stopReason, 'interrupted');
    assert.ok(Date.now() - t0 < 2000, `stopped in ${Date.now() - t0} ms`);
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an idle phase runs no process and lasts its duration', async () => {
  const load = createLoad('idle', { durationMs: 300 });
  const t0 = Date.now();
  const final = await load.start();
  assert.ok(Date.now() - t0 >= 290);
  assert.equal(final.stopReason, 'duration');
  assert.equal(final.workers, 0);
  assert.ok(final.seconds >= 0.29);
});
