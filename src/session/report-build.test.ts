import { test } from 'node:test';
import assert from 'node:assert/strict';
import { correlateXruns } from '../analysis/correlate.js';
import { buildSessionReport, summarizeHeadroom, type CollectedSession } from './report-build.js';
import { renderReportMarkdown, renderReportText } from './report-text.js';
import type { SessionKernelEvent, SessionParams } from './events.js';
import { parseEventLog } from './event-log.js';

const MS = 1e6;
const START = 50_000 * MS;

const params: SessionParams = {
  device: 'hw:CARD=Dummy,DEV=0',
  rateHz: 48000,
  periodFrames: 64,
  periods: 2,
  phasePlan: 'idle:10s,write:10s',
  durationMs: null,
  mask: 3,
  capture: 'auto',
  loadDir: '/tmp',
  outDir: null,
  maxXruns: null,
  rtPriority: 80,
  cpu: null,
  injectStall: false,
  scrub: true,
};

const host = {
  kernelRelease: '6.1.192',
  kernelVersion: '#1 SMP PREEMPT_DYNAMIC',
  arch: 'x86_64',
  preempt: 'voluntary',
  cpus: 2,
  threadirqs: false,
  xrunDebugAvailable: true,
};

function kev(
  ms: number,
  fn: string,
  cls: SessionKernelEvent['offender']['class'] = 'kernel',
): SessionKernelEvent {
  return {
    kind: 'xrun',
    pcm: 'pcmC0D0p',
    time: (START + ms * MS) / 1e9,
    sessionMs: null,
    phase: null,
    offender: {
      class: cls,
      function: cls === 'kernel' ? fn : null,
      module: null,
      signature: cls === 'kernel' ? fn : null,
    },
    frames: [fn],
  };
}

function collected(): CollectedSession {
  const phases = [
    {
      name: 'idle',
      kind: 'idle',
      startMs: 0,
      endMs: 10_000,
      throughput: null,
      headroomSamplesUs: [1200, 1100, 1300],
    },
    {
      name: 'write',
      kind: 'write',
      startMs: 10_000,
      endMs: 20_000,
      throughput: { bytes: 500e6, mbPerSec: 50 },
      headroomSamplesUs: [900, 100, 0, 800],
    },
  ];
  // Three xruns under write, two with a kernel dump 2 ms earlier, one without any.
  const xruns = [12_000, 15_000, 18_000].map((ms) => ({
    timeMs: ms,
    monotonicNs: START + ms * MS,
    durationMs: 3,
  }));
  const events = [
    kev(11_998, '__filemap_add_folio'),
    kev(14_998, '__filemap_add_folio'),
    kev(5_000, 'x', 'idle'),
  ];
  const correlation = correlateXruns({
    xruns,
    events,
    pcm: 'pcmC0D0p',
    offsetNs: 0,
    sessionStartNs: START,
    bufferMs: 2.67,
    phases,
  });
  return {
    params,
    host,
    durationMs: 20_000,
    phases,
    xruns,
    capture: { source: 'kmsg', lostMessages: 0, pcm: 'pcmC0D0p', mask: 3 },
    events,
    offenders: [
      {
        function: '__filemap_add_folio',
        module: null,
        signature: '__filemap_add_folio',
        count: 2,
        share: 1,
      },
    ],
    correlation,
    clockAlignment: 'marker',
    offsetNs: 0,
    policy: 'SCHED_FIFO 80',
    bufferMs: 2.67,
    limitations: [],
    warnings: [],
    bundle: '/tmp/b',
    files: {
      bundle: '/tmp/b/bundle.json.gz',
      events: '/tmp/b/events.ndjson',
      kernelLog: null,
      report: null,
    },
  };
}

test('headroom summary: p99 is the low tail (small headroom is bad)', () => {
  assert.deepEqual(summarizeHeadroom([5, 1, 3, 2, 4]), { p50Us: 3, p99Us: 1, minUs: 1, count: 5 });
  assert.equal(summarizeHeadroom([]), null);
});

test('the report attributes xruns to phases, matches kernel dumps and concludes first', () => {
  const r = buildSessionReport(collected());
  assert.equal(r.exitCode, 2);
  assert.deepEqual(
    r.phases.map((p) => [p.name, p.xruns, p.xrunsPerMin, p.kernelEvents]),
    [
      ['idle', 0, 0, 1],
      ['write', 3, 18, 2],
    ],
  );
  assert.equal(r.phases[1]!.headroom?.minUs, 0);
  assert.equal(r.correlation.matched, 2);
  assert.equal(r.correlation.unmatchedXruns, 1);
  assert.equal(r.correlation.matchRatio, 0.667);
  assert.deepEqual(
    r.xruns.map((x) => x.kernelEventIndex),
    [0, 1, null],
  );
  assert.deepEqual(r.offenders[0]!.phases, { write: 2 });
  assert.match(r.conclusion[0]!, /^3 xruns in 20 s .*most under `write` \(3, 18\/min\)/);
  assert.ok(r.conclusion.some((c) => /No xruns under `idle`/.test(c)));
  assert.ok(
    r.conclusion.some((c) =>
      /Top offender: `__filemap_add_folio` in 100% of the dumps that interrupted kernel code/.test(
        c,
      ),
    ),
  );
  assert.ok(r.conclusion.some((c) => /1 of 3 userspace xruns had no kernel XRUN dump/.test(c)));
  assert.ok(r.suggestions.some((s) => /dirty/.test(s)));
  // The What-to-try line is the exact try command for this machine's device and worst phase.
  assert.ok(
    r.suggestions.some((s) =>
      s.endsWith(
        `prove it: xrunhunt try vm.dirty_bytes=64M vm.dirty_background_bytes=16M --device ${r.params.device} --period ${r.params.periodFrames} --phases write:30s`,
      ),
    ),
    r.suggestions.join('\n'),
  );
  assert.ok(r.suggestions.some((s) => /threadirqs/.test(s)));
  assert.ok(r.suggestions.some((s) => /--period 128/.test(s)));
  const text = renderReportText(r);
  assert.ok(text.startsWith('Conclusion\n'));
  assert.match(text, /write\s+10s\s+3\s+18\.0\s+2\s+50\.0 MB\/s\s+0\.80\/0\.00\/0\.00/);
  assert.match(text, /2 of 3 userspace xruns matched a kernel XRUN on pcmC0D0p \(67%\)/);
  assert.match(text, /bundle folder: \/tmp\/b/);
  const md = renderReportMarkdown(r);
  assert.match(md, /\| 1 \| 100% \| 2 \| `__filemap_add_folio` \|/);
});

test('a clean session exits 0 and says the period is safe', () => {
  const c = collected();
  c.xruns = [];
  c.events = [];
  c.offenders = [];
  c.correlation = correlateXruns({
    xruns: [],
    events: [],
    pcm: null,
    offsetNs: null,
    sessionStartNs: START,
    bufferMs: 2.67,
    phases: c.phases,
  });
  const r = buildSessionReport(c);
  assert.equal(r.exitCode, 0);
  assert.match(r.conclusion[0]!, /^No xruns in 20 s of playback at period 64 × 2/);
  assert.ok(r.suggestions.some((s) => /--period 32/.test(s)));
});

test('event log parsing keeps every whole line and flags a cut last line', () => {
  const a = JSON.stringify({ type: 'warning', timeMs: 1, message: 'a' });
  const b = JSON.stringify({
    type: 'xrun',
    timeMs: 2,
    index: 0,
    monotonicNs: 5,
    durationMs: 1,
    phase: null,
  });
  const parsed = parseEventLog(`${a}\n${b}\n{"type":"st`);
  assert.equal(parsed.events.length, 2);
  assert.equal(parsed.truncatedTail, true);
  assert.deepEqual(parsed.badLines, []);
  const bad = parseEventLog(`${a}\nnot json\n${b}\n`);
  assert.deepEqual(bad.badLines, [2]);
  assert.equal(bad.truncatedTail, false);
});

test('injected xruns prove detection but lead to no advice; idle xruns point at the setup', () => {
  const c = collected();
  c.xruns = [{ timeMs: 2_000, monotonicNs: START + 2_000 * MS, durationMs: 20, injected: true }];
  c.events = [];
  c.offenders = [];
  c.correlation = correlateXruns({
    xruns: c.xruns,
    events: [],
    pcm: null,
    offsetNs: null,
    sessionStartNs: START,
    bufferMs: 2.67,
    phases: c.phases,
  });
  const r = buildSessionReport(c);
  assert.equal(r.injectedXruns, 1);
  assert.ok(r.conclusion.some((l) => /injected on purpose/.test(l)));
  assert.ok(
    !r.conclusion.some((l) => /come with the load|too tight/.test(l)),
    r.conclusion.join('\n'),
  );
  assert.ok(
    !r.suggestions.some((s) => /larger buffer|preempt=full/.test(s)),
    r.suggestions.join('\n'),
  );

  c.xruns = [{ timeMs: 2_000, monotonicNs: START + 2_000 * MS, durationMs: 20 }];
  c.correlation = correlateXruns({
    xruns: c.xruns,
    events: [],
    pcm: null,
    offsetNs: null,
    sessionStartNs: START,
    bufferMs: 2.67,
    phases: c.phases,
  });
  const idle = buildSessionReport(c);
  assert.ok(
    idle.conclusion.some((l) => /Xruns even without load, none under `write`/.test(l)),
    idle.conclusion.join('\n'),
  );
  assert.ok(idle.suggestions.some((s) => /--period 128/.test(s)));
});

// Matches a collected session's xruns to its kernel events on pcmC0D0p (clocks aligned).
function correlateOnPcm(c: CollectedSession): CollectedSession['correlation'] {
  return correlateXruns({
    xruns: c.xruns,
    events: c.events,
    pcm: 'pcmC0D0p',
    offsetNs: 0,
    sessionStartNs: START,
    bufferMs: 2.67,
    phases: c.phases,
  });
}

test('a noisy idle baseline: the conclusion names what the load adds, and the top offender overall as there without load', () => {
  const c = collected();
  // Idle: 6 xruns with emulator-noise dumps; write: the same noise plus a load-only culprit.
  const idleMs = [1_000, 2_500, 4_000, 5_500, 7_000, 8_500];
  const writeMs = Array.from({ length: 24 }, (_, i) => 10_100 + i * 400);
  c.xruns = [...idleMs, ...writeMs].map((ms) => ({
    timeMs: ms,
    monotonicNs: START + ms * MS,
    durationMs: 3,
  }));
  c.events = [
    ...idleMs.map((ms) => kev(ms - 2, 'p9_virtio_request')),
    ...writeMs.slice(0, 6).map((ms) => kev(ms - 2, 'p9_virtio_request')),
    ...writeMs.slice(6).map((ms) => kev(ms - 2, 'ext4_writepages')),
  ];
  c.offenders = [
    {
      function: 'p9_virtio_request',
      module: null,
      signature: 'p9_virtio_request',
      count: 12,
      share: 0.6,
    },
    {
      function: 'ext4_writepages',
      module: null,
      signature: 'ext4_writepages',
      count: 18,
      share: 0.6,
    },
  ];
  c.correlation = correlateOnPcm(c);
  const r = buildSessionReport(c);
  assert.equal(r.loadEffect?.baseline.xrunsPerMin, 36);
  assert.equal(r.loadEffect?.offenders[0]?.function, 'ext4_writepages');
  assert.equal(r.loadEffect?.offenders.length, 1);
  const text = r.conclusion.join('\n');
  assert.match(text, /Idle baseline: 36\/min with no load/);
  assert.match(text, /Load adds: `write` \+108\/min \(144\/min, 4× idle\)/);
  assert.match(
    text,
    /Most added under load: `ext4_writepages` \+108\/min under `write` \(18 dumps/,
  );
  assert.match(text, /`p9_virtio_request`, is not significantly more frequent under load/);
  const rendered = renderReportText(r);
  assert.match(rendered, /What the load adds over idle \(idle\)/);
  assert.match(rendered, /ext4_writepages\s+write\s+18\s+108\.0\s+0\.0\s+\+108\.0/);
  assert.match(renderReportMarkdown(r), /## What the load adds over idle/);
});

test('an idle-only plan: no sentence about what the load adds or brings, the offender still concluded', () => {
  const c = collected();
  c.phases = c.phases.filter((p) => p.kind === 'idle');
  const idleMs = [1_000, 2_500, 4_000, 5_500, 7_000, 8_500];
  c.xruns = idleMs.map((ms) => ({ timeMs: ms, monotonicNs: START + ms * MS, durationMs: 3 }));
  c.events = idleMs.map((ms) => kev(ms - 2, 'xrunhunt_inject_unlock'));
  c.offenders = [
    {
      function: 'xrunhunt_inject_unlock',
      module: 'xrunhunt_inject',
      signature: 'xrunhunt_inject_unlock [xrunhunt_inject]',
      count: 6,
      share: 1,
    },
  ];
  c.correlation = correlateOnPcm(c);
  const r = buildSessionReport(c);
  const text = r.conclusion.join('\n');
  assert.doesNotMatch(text, /Idle baseline|No load phase|under load than idle|not what the load/);
  assert.match(text, /xrunhunt_inject_unlock/);
});

test('a quiet idle phase adds no baseline lines to the conclusion', () => {
  const r = buildSessionReport(collected());
  assert.equal(r.loadEffect?.baseline.xruns, 0);
  assert.doesNotMatch(r.conclusion.join('\n'), /Idle baseline/);
  // 0 idle against 3 under load in equal time (p = 0.125): not yet evidence that the load causes them.
  assert.match(
    r.conclusion.join('\n'),
    /and 3 under load: too few to say the load causes them .*p = 0\.13/,
  );
});
