// The SQLite FleetReader against a store built by the real ingest, every number checked
// against a count made straight from the bundles (no SQL, no store code).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bundle, BundleEvent } from '../bundle/schema.js';
import { XrunhuntError } from '../errors.js';
import { bundleHash } from '../bundle/content-hash.js';
import { openFleetStore } from '../bundle/store.js';
import type { FleetFilter, FleetReader } from './fleet-reader.js';
import { compareKernelReleases } from './kernel-order.js';
import { openSqliteFleetReader } from './sqlite-fleet-reader.js';
import { buildTestFleet, type TestFleet } from './test-fleet.js';

interface Flat {
  b: Bundle;
  e: BundleEvent;
}

/** Bundles a filter keeps, and their events it keeps (synthetic bundles have one card). */
function oracle(bundles: Bundle[], f: FleetFilter) {
  const has = (list: readonly string[] | undefined, v: string): boolean =>
    !list || list.length === 0 || list.includes(v);
  const kept = bundles.filter((b) => {
    const t = Date.parse(b.createdAt);
    return (
      has(f.kernelReleases, b.host.kernelRelease) &&
      has(f.preempts, b.host.preempt) &&
      has(f.captureBackends, b.params?.captureBackend ?? 'none') &&
      has(f.drivers, b.host.cards.find((c) => has(f.drivers, c.driver))?.driver ?? '\u0000') &&
      has(f.cards, b.host.cards.find((c) => has(f.cards, c.name))?.name ?? '\u0000') &&
      (f.sinceMs == null || t >= f.sinceMs) &&
      (f.untilMs == null || t < f.untilMs)
    );
  });
  const events: Flat[] = kept
    .flatMap((b) => b.events.map((e) => ({ b, e })))
    .filter(
      ({ b, e }) =>
        has(f.drivers, b.host.cards[0]!.driver) &&
        has(f.cards, b.host.cards[0]!.name) &&
        has(f.offenderClasses ?? ['kernel'], e.offender.class),
    );
  const hours = kept.reduce((s, b) => s + b.playbackMs, 0) / 3_600_000;
  return { kept, events, hours, machines: new Set(kept.map((b) => b.machineId)).size };
}

function bySignature(events: Flat[]) {
  const m = new Map<string, { n: number; machines: Set<string>; first: number; last: number }>();
  for (const { b, e } of events) {
    const k = e.offender.signature ?? `(${e.offender.class})`;
    const t = Date.parse(b.createdAt);
    const r = m.get(k) ?? { n: 0, machines: new Set(), first: t, last: t };
    r.n++;
    r.machines.add(b.machineId);
    r.first = Math.min(r.first, t);
    r.last = Math.max(r.last, t);
    m.set(k, r);
  }
  return m;
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, b);

describe('SqliteFleetReader over a store made by the real ingest', () => {
  let fleet: TestFleet;
  let reader: FleetReader;
  before(async () => {
    fleet = await buildTestFleet(600);
    reader = openSqliteFleetReader(fleet.db);
  });
  after(async () => {
    await reader?.close();
    fleet?.remove();
  });

  async function checkRanking(filter: FleetFilter): Promise<void> {
    const want = oracle(fleet.bundles, filter);
    const got = await reader.ranking({ filter, limit: 1000 });
    assert.equal(got.totals.bundles, want.kept.length, 'bundles');
    assert.equal(got.totals.machines, want.machines, 'machines');
    assert.ok(close(got.totals.playbackHours, want.hours), 'playback hours');
    const sigs = bySignature(want.events);
    assert.equal(got.rows.length, sigs.size, 'rows');
    assert.equal(got.more, 0);
    const total = want.events.length;
    for (const r of got.rows) {
      const w = sigs.get(r.signature ?? `(${r.class})`);
      assert.ok(w, `unexpected row ${r.signature}`);
      assert.equal(r.incidents, w.n, `incidents of ${r.signature}`);
      assert.equal(r.machines, w.machines.size, `machines of ${r.signature}`);
      assert.equal(r.firstSeenMs, w.first);
      assert.equal(r.lastSeenMs, w.last);
      assert.ok(close(r.perMachineHour, w.n / want.hours));
      assert.ok(close(r.share, w.n / total));
    }
    const counts = got.rows.map((r) => r.incidents);
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => b - a),
      'most incidents first',
    );
  }

  test('unfiltered ranking (read from the rollups) matches the bundles', async () => {
    await checkRanking({});
  });

  test('kernel, preemption and driver filters (rollups) match the bundles', async () => {
    await checkRanking({ kernelReleases: ['6.1.0-28-amd64', '6.12.1-arch1-1'] });
    await checkRanking({ preempts: ['full'], drivers: ['snd_hda_intel', 'snd_usb_audio'] });
  });

  test('card, capture backend, time range and class filters (events) match the bundles', async () => {
    await checkRanking({ cards: ['HDA Intel PCH'] });
    await checkRanking({ captureBackends: ['kprobe'], drivers: ['snd_hda_intel'] });
    await checkRanking({
      sinceMs: Date.UTC(2026, 3, 1),
      untilMs: Date.UTC(2026, 6, 1),
      offenderClasses: ['kernel', 'idle', 'user'],
    });
  });

  test('the rollup path and the events path give the same ranking', async () => {
    const viaRollup = await reader.ranking({ filter: { drivers: ['snd_usb_audio'] } });
    const viaEvents = await reader.ranking({
      filter: { drivers: ['snd_usb_audio'], sinceMs: 0 },
    });
    assert.deepEqual(viaEvents, viaRollup);
  });

  test('totals split every class before the class filter', async () => {
    const got = await reader.ranking({ filter: {} });
    const all = fleet.bundles.flatMap((b) => b.events);
    for (const c of ['kernel', 'idle', 'user', 'none'] as const) {
      assert.equal(got.totals.classes[c], all.filter((e) => e.offender.class === c).length);
    }
    assert.ok(got.totals.classes.idle > 0 && got.totals.classes.user > 0);
  });

  test('limit keeps the top rows and counts the rest', async () => {
    const all = await reader.ranking({ filter: {}, limit: 1000 });
    const top = await reader.ranking({ filter: {}, limit: 3 });
    assert.deepEqual(top.rows, all.rows.slice(0, 3));
    assert.equal(top.more, all.rows.length - 3);
  });

  test('a signature page matches the bundles: per kernel, stacks, facets', async () => {
    const filter: FleetFilter = { preempts: ['voluntary', 'full'] };
    const first = (await reader.ranking({ filter })).rows[0]!;
    const sig = first.signature!;
    const d = await reader.signature({ signature: sig, filter });
    assert.ok(d);
    const want = oracle(fleet.bundles, filter);
    const mine = want.events.filter(({ e }) => e.offender.signature === sig);
    assert.equal(d.incidents, mine.length);
    assert.equal(d.machines, new Set(mine.map(({ b }) => b.machineId)).size);
    assert.ok(close(d.perMachineHour, mine.length / want.hours));
    const releases = [...new Set(want.kept.map((b) => b.host.kernelRelease))].sort(
      compareKernelReleases,
    );
    assert.deepEqual(
      d.kernels.map((k) => k.release),
      releases,
    );
    for (const k of d.kernels) {
      const on = mine.filter(({ b }) => b.host.kernelRelease === k.release);
      assert.equal(k.incidents, on.length, k.release);
      assert.equal(k.affectedMachines, new Set(on.map(({ b }) => b.machineId)).size);
      assert.equal(k.bundles, want.kept.filter((b) => b.host.kernelRelease === k.release).length);
    }
    assert.equal(
      d.stacks.reduce((s, x) => s + x.count, 0),
      mine.length,
      'every incident in one of its stacks',
    );
    assert.ok(d.stacks[0]!.frames.length > 0);
    assert.equal(
      d.cards.reduce((s, x) => s + x.count, 0),
      mine.length,
    );
    assert.equal(
      d.captureBackends.find((c) => c.value === 'kprobe')?.count ?? 0,
      mine.filter(({ b }) => b.params?.captureBackend === 'kprobe').length,
    );
    assert.equal(await reader.signature({ signature: 'no such signature', filter }), null);
  });

  test('appears in / disappears in follow kernel version order', async () => {
    const rows = (await reader.ranking({ filter: {}, limit: 1000 })).rows;
    for (const r of rows.slice(0, 4)) {
      const d = (await reader.signature({ signature: r.signature!, filter: {} }))!;
      const on = d.kernels.filter((k) => k.incidents > 0).map((k) => k.release);
      assert.equal(d.appearsIn, on[0]);
      const lastIdx = d.kernels.findIndex((k) => k.release === on[on.length - 1]);
      assert.equal(d.disappearsIn, d.kernels[lastIdx + 1]?.release ?? null);
    }
  });

  test('the trend sums to the ranking, per release and per signature', async () => {
    const filter: FleetFilter = { drivers: ['snd_hda_intel'] };
    const t = await reader.trend({ filter, top: 3 });
    const r = await reader.ranking({ filter, limit: 3 });
    assert.deepEqual(t.releases, [...t.releases].sort(compareKernelReleases));
    assert.equal(
      t.fleet.reduce((s, k) => s + k.incidents, 0),
      r.totals.classes.kernel,
    );
    assert.equal(
      t.fleet.reduce((s, k) => s + k.bundles, 0),
      r.totals.bundles,
    );
    assert.deepEqual(
      t.series.map((s) => s.signature),
      r.rows.map((x) => x.signature),
    );
    for (const [i, s] of t.series.entries()) {
      assert.equal(
        s.points.reduce((n, k) => n + k.incidents, 0),
        r.rows[i]!.incidents,
      );
    }
  });

  test('flame stacks add up to the selected incidents; limit sums the rest', async () => {
    const all = await reader.flame({ filter: {} });
    const kernel = fleet.bundles
      .flatMap((b) => b.events)
      .filter((e) => e.offender.class === 'kernel');
    assert.equal(all.total, kernel.length);
    assert.equal(all.otherCount, 0);
    assert.equal(
      all.stacks.reduce((s, x) => s + x.count, 0),
      kernel.length,
    );
    const two = await reader.flame({ filter: {}, limit: 2 });
    assert.equal(two.stacks.length, 2);
    assert.equal(two.otherCount + two.stacks[0]!.count + two.stacks[1]!.count, kernel.length);
  });

  test('filter values are the bundles’ values with bundle counts, kernels in version order', async () => {
    const v = await reader.filterValues();
    const count = (f: (b: Bundle) => string, value: string): number =>
      fleet.bundles.filter((b) => f(b) === value).length;
    for (const k of v.kernelReleases)
      assert.equal(
        k.count,
        count((b) => b.host.kernelRelease, k.value),
      );
    for (const c of v.cards)
      assert.equal(
        c.count,
        count((b) => b.host.cards[0]!.name, c.value),
      );
    for (const c of v.captureBackends)
      assert.equal(
        c.count,
        count((b) => b.params?.captureBackend ?? 'none', c.value),
      );
    assert.deepEqual(
      v.kernelReleases.map((k) => k.value),
      [...new Set(fleet.bundles.map((b) => b.host.kernelRelease))].sort(compareKernelReleases),
    );
    const times = fleet.bundles.map((b) => Date.parse(b.createdAt));
    assert.deepEqual(v.timeRange, { firstMs: Math.min(...times), lastMs: Math.max(...times) });
  });
});

test('a missing file or a file that is not a store is a user error, never created', async () => {
  const fleet = await buildTestFleet(1);
  try {
    assert.throws(
      () => openSqliteFleetReader(join(fleet.dir, 'nope.db')),
      (e: unknown) => e instanceof XrunhuntError && /no fleet store/.test(e.message),
    );
    const junk = join(fleet.dir, 'junk.db');
    writeFileSync(junk, 'not sqlite at all, just text '.repeat(100));
    assert.throws(
      () => openSqliteFleetReader(junk),
      (e: unknown) => e instanceof XrunhuntError && e.hint !== undefined,
    );
  } finally {
    fleet.remove();
  }
});

test('answers are reused until an ingest commits, then recomputed', async () => {
  const fleet = await buildTestFleet(20);
  const reader = openSqliteFleetReader(fleet.db);
  try {
    const a = await reader.ranking({ filter: {} });
    a.totals.bundles = -1; // a caller changing its copy changes nothing cached
    assert.equal((await reader.ranking({ filter: {} })).totals.bundles, 20);
    const store = openFleetStore(fleet.db);
    const extra = structuredClone(fleet.bundles[0]!);
    extra.machineId = 'e'.repeat(32);
    store.ingest([{ bundle: extra, hash: bundleHash(extra), source: 'test' }], 0);
    store.close();
    const b = await reader.ranking({ filter: {} });
    assert.equal(b.totals.bundles, 21);
    assert.equal(b.totals.machines, new Set(fleet.bundles.map((x) => x.machineId)).size + 1);
  } finally {
    await reader.close();
    fleet.remove();
  }
});
