import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleHash } from './content-hash.js';
import type { Bundle } from './schema.js';
import { openFleetStore, type FleetStore } from './store.js';
import { syntheticBundle } from './synthetic-fleet.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

const ext4 = (): Bundle => validateBundle(fixtureJson('session-ext4-writeback.json'));
const lab = (): Bundle => validateBundle(fixtureJson('session-lab-test-lockup.json.gz'));
const item = (b: Bundle, source = 'test') => ({ bundle: b, hash: bundleHash(b), source });

function withStore(fn: (s: FleetStore, dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-store-'));
  const s = openFleetStore(join(dir, 'fleet.db'));
  try {
    fn(s, dir);
  } finally {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the same bundle counts once, in one batch or across batches', () => {
  withStore((s) => {
    const a = ext4();
    assert.deepEqual(s.ingest([item(a), item(structuredClone(a))], 0), { added: 1, duplicates: 1 });
    assert.deepEqual(s.ingest([item(a)], 0), { added: 0, duplicates: 1 });
    assert.equal(s.count(), 1);
    const g = s.rank().groups[0]!;
    assert.equal(g.signatures[0]!.incidents, 3);
  });
});

test('ranking: incidents, machines, per machine-hour, share, facets and an example stack', () => {
  withStore((s) => {
    const a = ext4();
    const b = ext4();
    b.machineId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    b.createdAt = '2026-11-25T10:00:00.000Z';
    b.host.kernelRelease = '6.1.0-30-amd64';
    b.events = b.events.slice(0, 2); // 1 idle + 1 ext4
    s.ingest([item(a), item(b), item(lab())], 0);
    const r = s.rank();
    assert.equal(r.groups.length, 1);
    const g = r.groups[0]!;
    assert.equal(g.bundles, 3);
    assert.equal(g.machines, 3);
    assert.deepEqual(g.classes, { kernel: 7, idle: 2, user: 0, none: 0 });
    const [first, second] = g.signatures;
    assert.equal(first!.signature, '_raw_spin_unlock_irq | __filemap_add_folio');
    assert.equal(first!.incidents, 4);
    assert.equal(first!.machines, 2);
    assert.equal(first!.share, 4 / 7);
    const hours = (70_000 + 70_000 + 25_000) / 3_600_000;
    assert.ok(Math.abs(first!.perMachineHour - 4 / hours) < 1e-9);
    assert.deepEqual(first!.kernels.first, {
      release: '6.1.0-28-amd64',
      at: '2026-11-20T18:42:07.311Z',
    });
    assert.deepEqual(first!.kernels.last, {
      release: '6.1.0-30-amd64',
      at: '2026-11-25T10:00:00.000Z',
    });
    assert.deepEqual(first!.drivers, [{ value: 'snd_hda_intel', count: 4 }]);
    assert.deepEqual(first!.loads, [{ value: 'write', count: 4 }]);
    assert.ok(first!.exampleStack.includes('RIP: _raw_spin_unlock_irq'));
    assert.equal(second!.signature, 'test_unlock');
    assert.equal(second!.module, 'test_lockup');
  });
});

test('--by groups separately and --since leaves older bundles out', () => {
  withStore((s) => {
    const b = ext4();
    b.machineId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    b.host.preempt = 'full';
    s.ingest([item(ext4()), item(b), item(lab())], 0);
    const byPreempt = s.rank({ by: 'preempt' });
    assert.deepEqual(
      byPreempt.groups.map((g) => [
        g.key,
        g.bundles,
        g.signatures.map((x) => `${x.signature}:${x.incidents}`),
      ]),
      [
        ['full', 2, ['_raw_spin_unlock_irq | __filemap_add_folio:3', 'test_unlock:3']],
        ['voluntary', 1, ['_raw_spin_unlock_irq | __filemap_add_folio:3']],
      ],
    );
    const byLoad = s.rank({ by: 'load' });
    const write = byLoad.groups.find((g) => g.key === 'write')!;
    assert.equal(
      write.playbackHours,
      (30_000 * 2) / 3_600_000,
      'denominator = time spent in write phases',
    );
    const recent = s.rank({ sinceMs: Date.parse('2026-11-27T00:00:00Z') });
    assert.equal(recent.groups[0]!.bundles, 1);
    assert.equal(recent.groups[0]!.signatures[0]!.signature, 'test_unlock');
    assert.equal(s.rank({ top: 1 }).groups[0]!.more, 1);
  });
});

test('resign recomputes signatures from stored frames and records the rules version', () => {
  withStore((s) => {
    s.ingest([item(ext4()), item(lab())], 0);
    // A rule change that names the lock primitive's caller only (as the analyzer might).
    const res = s.resign((frames) => {
      const rip = frames.findIndex((f) => f.startsWith('RIP: '));
      const next = frames[rip + 1] ?? null;
      if (frames[rip] === 'RIP: cpuidle_enter_state')
        return { class: 'idle', function: null, module: null, signature: null };
      return { class: 'kernel', function: next, module: null, signature: `caller:${next}` };
    }, '2');
    assert.equal(res.events, 6);
    const r = s.rank();
    assert.equal(r.rulesVersion, '2');
    assert.deepEqual(r.rulesVersions, [{ value: '2', count: 2 }]);
    assert.deepEqual(
      r.groups[0]!.signatures.map((x) => x.signature),
      ['caller:__filemap_add_folio', 'caller:test_lockup_init [test_lockup]'],
    );
    // Rollups follow the re-signed events.
    assert.deepEqual({ ...s.rank(), sinceMs: 0 }, s.rank({ sinceMs: 0 }));
    // Idempotent: the same rules again change nothing.
    assert.equal(
      s.resign(() => ({ class: 'none', function: null, module: null, signature: null }), '3')
        .events,
      7,
    );
    assert.equal(
      s.resign(() => ({ class: 'none', function: null, module: null, signature: null }), '3')
        .events,
      0,
    );
  });
});

test('a file that is not a fleet store is refused and left untouched', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-store-'));
  try {
    const p = join(dir, 'notes.db');
    writeFileSync(p, 'hello, this is not sqlite at all, just text that is long enough');
    assert.throws(() => openFleetStore(p), /cannot open the fleet store .*notes\.db/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a synthetic fleet of 2,000 bundles ranks consistently (totals add up)', () => {
  withStore((s) => {
    const base = ext4();
    const items = Array.from({ length: 2000 }, (_, i) => item(syntheticBundle(base, i, 300)));
    const r0 = s.ingest(items.slice(0, 1000), 0);
    const r1 = s.ingest(items.slice(500), 0);
    assert.equal(r0.added + r1.added, 2000);
    assert.equal(r1.duplicates, 500);
    const g = s.rank({ top: 1000 }).groups[0]!;
    const events = items.reduce(
      (n, x) => n + x.bundle.events.filter((e) => e.offender.class === 'kernel').length,
      0,
    );
    assert.equal(g.classes.kernel, events);
    assert.equal(
      g.signatures.reduce((n, x) => n + x.incidents, 0),
      events,
    );
    assert.ok(Math.abs(g.signatures.reduce((n, x) => n + x.share, 0) - 1) < 1e-9);
    assert.ok(g.machines <= 300 && g.machines > 250);
    const byKernel = s.rank({ by: 'kernel' });
    assert.equal(
      byKernel.groups.reduce((n, x) => n + x.bundles, 0),
      2000,
    );
    // The rollup path (full history) and the raw-events path (--since) agree exactly.
    for (const by of [null, 'kernel', 'driver', 'preempt', 'load'] as const) {
      const fast = s.rank({ by, top: 1000 });
      const slow = s.rank({ by, top: 1000, sinceMs: 0 });
      assert.deepEqual({ ...fast, sinceMs: 0 }, slow, `by ${by}`);
    }
  });
});
