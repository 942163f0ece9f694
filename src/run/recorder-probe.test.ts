// The recorder's windows (pure) on a real lab capture and on synthetic floods, and the probe's
// modes (off / auto / on) with a MOCK source standing in for tracefs (recorder-source.test.ts
// tests the real source on its mock kernel; test/lab/recorder-lab.test.ts the real kernel).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import type { RecorderSource, RecorderSourceOptions } from '../kernel/recorder-source.js';
import { createRecorderProbe } from './recorder-probe.js';
import {
  DEFAULT_WINDOW_LIMITS,
  RecorderWindows,
  renderRecorderText,
  windowSeconds,
} from './recorder-windows.js';
import type { RunContext } from './probe.js';

const FIXTURE = join(
  import.meta.dirname,
  '../../test/fixtures/recorder-probe/hda-threadirq-excerpt.txt',
);
const fixtureLines = (): string[] =>
  readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));

const ev = (cpu: number, ts: number, name: string, rest = ''): string =>
  `          dd-179     [00${cpu}] d..2.  ${ts.toFixed(6)}: ${name}: ${rest}`;
const hitLine = (cpu: number, ts: number): string =>
  ` irq/33-snd_hda_-159     [00${cpu}] D..1.  ${ts.toFixed(6)}: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])`;
const stackHead = (cpu: number, ts: number): string =>
  ` irq/33-snd_hda_-159     [00${cpu}] D..1.  ${ts.toFixed(6)}: <stack trace>`;

test('W is max(2 × buffer time, 50 ms)', () => {
  assert.equal(windowSeconds(null), 0.05);
  assert.equal(windowSeconds(0.002667), 0.05);
  assert.equal(windowSeconds(0.1), 0.2);
});

test('a real lab capture: one hit, its window reaches 50 ms back and ends with the hit’s stack', () => {
  const w = new RecorderWindows(() => 0.05);
  for (const l of fixtureLines()) w.push(l);
  w.finish();
  const [win, ...more] = w.windows();
  assert.equal(more.length, 0);
  assert.equal(w.counts.hits, 1);
  assert.equal(win!.hit.ts, 8.572607);
  assert.equal(win!.hit.cpu, 0);
  assert.match(win!.hit.line, /xrun: \(__snd_pcm_xrun/);
  const stackAt = win!.lines.findIndex((l) => l.includes('<stack trace>'));
  assert.ok(stackAt > 0, 'the stack block is in the window');
  assert.deepEqual(win!.lines.slice(stackAt + 1).slice(-3), [
    ' => irq_thread',
    ' => kthread',
    ' => ret_from_fork',
  ]);
  assert.equal(
    win!.lines[stackAt - 1],
    win!.hit.line,
    'the hit is the last event line before its stack',
  );
  // The window starts at the first line at or after hit − 50 ms: the line before it is older.
  const all = fixtureLines();
  const at = all.indexOf(win!.lines[0]!);
  const tsOf = (l: string): number => Number(/\s(\d+\.\d+):/.exec(l)![1]);
  assert.ok(tsOf(all[at]!) >= 8.572607 - 0.05, `window starts at ${tsOf(all[at]!)}`);
  assert.ok(tsOf(all[at - 1]!) < 8.572607 - 0.05, 'the line before the window is older than W');
  assert.ok(
    !win!.lines.some((l) => /\s8\.57[4-9]\d+:/.test(l)),
    'nothing after the hit but its stack',
  );
  assert.equal(w.counts.hitsWithoutStack, 0);
  assert.equal(w.counts.windowsTruncated, 0);
});

test('another CPU’s events between the hit and its stack stay out; the stack still joins', () => {
  const w = new RecorderWindows(() => 0.05);
  w.push(ev(0, 1.0, 'sched_switch', 'a'));
  w.push(ev(1, 1.01, 'sched_waking', 'b'));
  w.push(hitLine(0, 1.02));
  w.push(ev(1, 1.0205, 'irq_handler_entry', 'irq=25'));
  w.push(stackHead(0, 1.021));
  w.push(' => __snd_pcm_xrun');
  w.push(' => azx_interrupt');
  w.push(ev(1, 1.03, 'sched_switch', 'c'));
  const [win] = w.windows();
  assert.deepEqual(win!.lines, [
    ev(0, 1.0, 'sched_switch', 'a'),
    ev(1, 1.01, 'sched_waking', 'b'),
    hitLine(0, 1.02),
    stackHead(0, 1.021),
    ' => __snd_pcm_xrun',
    ' => azx_interrupt',
  ]);
});

test('a hit whose stack never comes is frozen 100 ms later without it, and counted', () => {
  const w = new RecorderWindows(() => 0.05);
  w.push(hitLine(0, 2.0));
  w.push(ev(1, 2.05, 'sched_switch'));
  assert.equal(w.windows().length, 0, 'still waiting for the stack');
  w.push(ev(1, 2.2, 'sched_switch'));
  assert.equal(w.windows().length, 1);
  assert.equal(w.counts.hitsWithoutStack, 1);
});

test('bounded: the ring keeps ~2 s and its caps, windows the first and last N, each window capped', () => {
  const limits = {
    ...DEFAULT_WINDOW_LIMITS,
    ringMaxLines: 1000,
    keepFirst: 3,
    keepLast: 2,
    windowMaxLines: 50,
  };
  const w = new RecorderWindows(() => 0.05, limits);
  let ts = 10;
  for (let n = 0; n < 20; n++) {
    // A flood: 200 lines per 10 ms, then a hit with its stack.
    for (let i = 0; i < 200; i++)
      w.push(ev(i % 2, (ts += 0.00005), 'sched_switch', `n=${n} i=${i}`));
    w.push(hitLine(0, (ts += 0.00001)));
    w.push(stackHead(0, ts));
    w.push(' => f');
  }
  w.push(ev(0, ts + 1, 'sched_switch'));
  w.finish();
  const ws = w.windows();
  assert.equal(w.counts.hits, 20);
  assert.equal(ws.length, 5);
  assert.equal(w.counts.windowsKept, 5);
  assert.equal(w.counts.windowsDropped, 15);
  assert.deepEqual(
    ws.map((x) => x.hit.ts),
    [0, 1, 2, 18, 19].map(
      (n) => ws.find((y) => y.lines.some((l) => l.includes(`n=${n} i=199`)))!.hit.ts,
    ),
  );
  for (const x of ws) assert.ok(x.lines.length <= 50 + 2, `${x.lines.length} lines`);
  assert.equal(w.counts.windowsTruncated, 20);
  const text = renderRecorderText(ws, w.counts, 4096);
  assert.ok(Buffer.byteLength(text) <= 4096 + 200);
  assert.match(text, /more window\(s\) not written: recorder\.txt is capped/);
});

/** MOCK source: replays lines into onLine, as the real one does from trace_pipe. */
function mockSource(
  lines: string[],
  fail?: Error,
  probeHits: number | null = null,
  /** What close() "drains": lines handed over at close, whether that emptied the buffer, lag. */
  drain?: { lines: string[]; emptied: boolean; lag: number },
) {
  const seen: RecorderSourceOptions[] = [];
  let closed = 0;
  const create = (o: RecorderSourceOptions): RecorderSource => {
    seen.push(o);
    const counts = {
      lines: 0,
      lostEvents: 0,
      droppedLines: 0,
      bytes: 0,
      probeHits: null as number | null,
      ringLoss: null,
      drainedLines: 0,
      drainEmptied: null as boolean | null,
      maxLagSeconds: 0,
      lagAtStopSeconds: null as number | null,
    };
    return {
      setup: null,
      counts,
      warnings: [],
      restoreReport: null,
      async start() {
        if (fail) throw fail;
        for (const l of lines) {
          counts.lines++;
          counts.bytes += l.length + 1;
          o.onLine(l);
        }
        return {
          tracefs: '/t',
          instance: '/t/instances/xrunhunt-recorder',
          events: ['sched:sched_switch', 'xrunhunt_rec:xrun'],
          skipped: ['timer:hrtimer_expire_entry (not in this kernel)'],
          probe: 'p:xrunhunt_rec/xrun __snd_pcm_xrun',
          point: null,
          irqs: [],
          bufferKb: 2048,
          cpus: null,
        };
      },
      async close() {
        closed++;
        counts.probeHits = probeHits;
        if (drain) {
          counts.lagAtStopSeconds = drain.lag;
          counts.maxLagSeconds = drain.lag;
          for (const l of drain.lines) o.onLine(l);
          counts.lines += drain.lines.length;
          counts.drainedLines = drain.lines.length;
          counts.drainEmptied = drain.emptied;
        }
      },
    };
  };
  return { create, seen, closed: () => closed };
}

function ctx(): RunContext & { said: string[] } {
  const said: string[] = [];
  return {
    said,
    t0: 0n,
    elapsed: () => 0,
    stop: new AbortController().signal,
    requestStop: () => undefined,
    notes: {
      warnings: [],
      limitations: [],
      warn: (m) => said.push(`warn: ${m}`),
      note: (m) => said.push(`note: ${m}`),
    },
  };
}

const base = {
  journalDir: '/j',
  toolVersion: 't',
  command: 'session --recorder on',
  bufferSeconds: () => 0.002667,
};

test('probe on: windows from the source’s lines, status counters, recorder.txt in the bundle', async () => {
  const m = mockSource(fixtureLines());
  const p = createRecorderProbe({
    ...base,
    mode: 'on',
    createSource: m.create,
    unavailable: () => null,
  });
  const c = ctx();
  await p.apply!(c);
  await p.restore!(c);
  assert.equal(m.closed(), 1);
  const s = p.status();
  assert.equal(s.enabled, true);
  assert.equal(s.hits, 1);
  assert.equal(s.windowsKept, 1);
  assert.equal(s.lines, fixtureLines().length);
  assert.deepEqual(s.events, ['sched:sched_switch', 'xrunhunt_rec:xrun']);
  assert.equal(p.windows().length, 1);
  const [file] = p.bundleFiles!();
  assert.equal(file!.name, 'recorder.txt');
  assert.match(file!.text, /^# xrunhunt flight recorder: 1 xrun hit\(s\), 1 window\(s\) kept/);
  assert.match(file!.text, /# window 1: hit at 8\.572607 on CPU 0/);
});

test('probe off changes nothing; auto without tracefs says why; on without it is a clear error', async () => {
  const m = mockSource([]);
  const off = createRecorderProbe({ ...base, mode: 'off', createSource: m.create });
  await off.apply!(ctx());
  assert.equal(m.seen.length, 0);
  assert.match(off.status().reason, /--recorder off/);
  assert.deepEqual(off.bundleFiles!(), []);

  const c = ctx();
  const auto = createRecorderProbe({
    ...base,
    mode: 'auto',
    createSource: m.create,
    unavailable: () => 'tracefs is not mounted',
  });
  await auto.apply!(c);
  assert.equal(m.seen.length, 0);
  assert.equal(auto.status().enabled, false);
  assert.equal(auto.status().reason, '--recorder auto: off because tracefs is not mounted');
  assert.deepEqual(c.said, ['note: flight recorder off: tracefs is not mounted']);

  const on = createRecorderProbe({
    ...base,
    mode: 'on',
    createSource: m.create,
    unavailable: () => 'the flight recorder needs root (tracefs)',
  });
  await assert.rejects(
    async () => on.apply!(ctx()),
    (e: unknown) => {
      assert.ok(e instanceof XrunhuntError);
      assert.equal(e.message, '--recorder on: the flight recorder needs root (tracefs)');
      assert.match(e.hint ?? '', /--recorder auto/);
      return true;
    },
  );
});

test('auto turns a refused start into a warning; on rethrows it', async () => {
  const refused = new XrunhuntError(
    'permission',
    'flight recorder: cannot write kprobe_events (EPERM)',
  );
  const c = ctx();
  const auto = createRecorderProbe({
    ...base,
    mode: 'auto',
    createSource: mockSource([], refused).create,
    unavailable: () => null,
  });
  await auto.apply!(c);
  assert.equal(auto.status().enabled, false);
  assert.ok(c.said.some((s) => s.includes('cannot write kprobe_events (EPERM)')));
  const on = createRecorderProbe({
    ...base,
    mode: 'on',
    createSource: mockSource([], refused).create,
    unavailable: () => null,
  });
  await assert.rejects(async () => on.apply!(ctx()), /cannot write kprobe_events/);
});

test('hits the kernel fired but trace_pipe never delivered are counted and warned about', async () => {
  const m = mockSource(fixtureLines(), undefined, 3);
  const p = createRecorderProbe({
    ...base,
    mode: 'on',
    createSource: m.create,
    unavailable: () => null,
  });
  const c = ctx();
  await p.apply!(c);
  await p.restore!(c);
  assert.equal(p.status().probeHits, 3);
  assert.equal(p.status().hits, 1);
  assert.ok(
    c.said.includes(
      'warn: flight recorder: its probe fired 3 times but 1 hits reached trace_pipe; 2 were lost without the ring buffer reporting it (those XRUNs have no window)',
    ),
    c.said.join('\n'),
  );
});

test('hits read from the backlog at close count as drained; a drain cut by its deadline is warned about', async () => {
  const lines = fixtureLines();
  const m = mockSource([], undefined, 1, { lines, emptied: false, lag: 12.5 });
  const p = createRecorderProbe({
    ...base,
    mode: 'on',
    createSource: m.create,
    unavailable: () => null,
  });
  const c = ctx();
  await p.apply!(c);
  await p.restore!(c);
  const s = p.status();
  assert.equal(s.hits, 1);
  assert.equal(s.windowsKept, 1);
  assert.deepEqual(s.drained, { lines: lines.length, hits: 1, emptied: false });
  assert.deepEqual(s.readerLag, { maxSeconds: 12.5, atStopSeconds: 12.5 });
  assert.ok(
    c.said.some((w) => /was 12\.5 s behind at the end and could not read it all/.test(w)),
    c.said.join('\n'),
  );
});

test('explain(): the kept window of the real capture becomes its breakdown (aplay kept off CPU 0 by cat and dd)', async () => {
  const m = mockSource(fixtureLines());
  const p = createRecorderProbe({
    ...base,
    mode: 'on',
    createSource: m.create,
    unavailable: () => null,
  });
  const c = ctx();
  await p.apply!(c);
  await p.restore!(c);
  const r = p.explain({ periodSeconds: 64 / 48000, bufferSeconds: 128 / 48000 });
  assert.ok(r);
  assert.equal(r.unreadable, 0);
  assert.equal(r.breakdowns.length, 1);
  const b = r.breakdowns[0]!;
  // Read by hand from the trace (test/fixtures/recorder/, breakdown-fixtures.test.ts): aplay was
  // woken at 8.570439 by the IRQ thread and kept off CPU 0 by cat (0.859 ms) and dd (0.840 ms).
  assert.equal(b.cls, 'blocked-by-task');
  assert.equal(b.late.comm, 'aplay');
  assert.deepEqual(
    b.parts.slice(0, 2).map((x) => [x.name, Math.round(x.ms * 1000)]),
    [
      ['cat', 859],
      ['dd', 840],
    ],
  );
  assert.equal(r.summary.blockers[0]?.name, 'cat');
  const off = createRecorderProbe({ ...base, mode: 'off', createSource: m.create });
  assert.equal(off.explain({ periodSeconds: 0.001, bufferSeconds: 0.002 }), null);
});
