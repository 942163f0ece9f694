// Builds the session report from what a session collected: per-phase figures, ranked
// offenders with the phases they appeared in, class shares, correlation counts and — first
// of all — a plain conclusion with what to try next. Pure: values in, values out.
import type { CorrelationResult } from '../analysis/correlate.js';
import type {
  CaptureSourceName,
  HeadroomSummary,
  SessionHostSummary,
  SessionKernelEvent,
  SessionParams,
  SessionThroughput,
} from './events.js';
import type {
  ClassShares,
  ReportOffender,
  ReportPhase,
  ReportXrun,
  SessionReport,
} from './report-model.js';
import { computeLoadEffect } from './load-effect.js';
import { describePeriodChoice, type PeriodChoice } from './period-choice.js';
import { toBundleV1Class } from '../analysis/bundle-class.js';

/** One phase as the session ran it. */
export interface CollectedPhase {
  name: string;
  kind: string;
  startMs: number;
  endMs: number;
  throughput: SessionThroughput | null;
  /** Per-interval (≈1 s) minimum headroom samples in µs, from playback stats. */
  headroomSamplesUs: number[];
}

export interface CollectedXrun {
  timeMs: number;
  monotonicNs: number;
  durationMs: number | null;
  injected?: boolean;
}

/** An offender ranking row as the analyzer produces it. */
export interface RankedOffender {
  function: string | null;
  module: string | null;
  signature: string;
  count: number;
  share: number;
}

export interface CollectedSession {
  params: SessionParams;
  host: SessionHostSummary;
  durationMs: number;
  phases: CollectedPhase[];
  xruns: CollectedXrun[];
  capture: {
    source: CaptureSourceName;
    lostMessages: number;
    pcm: string | null;
    mask: number | null;
  };
  /** Analyzer events (sessionMs/phase are filled from the correlation). */
  events: SessionKernelEvent[];
  offenders: RankedOffender[];
  correlation: CorrelationResult;
  clockAlignment: 'marker' | 'assumed' | 'none';
  offsetNs: number | null;
  /** Scheduling the writer got, e.g. "SCHED_FIFO 80". */
  policy: string | null;
  bufferMs: number;
  limitations: string[];
  warnings: string[];
  bundle: string | null;
  files: SessionReport['files'];
  /** How `--period auto` chose the period. */
  periodChoice?: PeriodChoice | null;
}

/** Summarises per-interval headroom samples: median and p99 of the worst-per-second, and the minimum. */
export function summarizeHeadroom(samplesUs: readonly number[]): HeadroomSummary | null {
  if (samplesUs.length === 0) return null;
  const s = [...samplesUs].sort((a, b) => a - b);
  // Headroom is good when LARGE: the "p99" worst case is the 1st percentile from the bottom.
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { p50Us: at(0.5), p99Us: at(0.01), minUs: s[0]!, count: s.length };
}

const perMin = (n: number, ms: number): number => (ms > 0 ? (n * 60_000) / ms : 0);
const round = (v: number, digits = 1): number => Number(v.toFixed(digits));
const pct = (share: number): string => `${Math.round(share * 100)}%`;

/** Names an offender the way the report prints it: `func [module]`. */
export function offenderName(o: { function: string | null; module: string | null }): string {
  return `${o.function ?? '(unknown)'}${o.module ? ` [${o.module}]` : ''}`;
}

/** Turns a session's collected data into the report (conclusion first). */
export function buildSessionReport(c: CollectedSession): SessionReport {
  const corr = c.correlation;
  const events: SessionKernelEvent[] = c.events.map((e, i) => ({
    ...e,
    sessionMs: corr.eventSessionMs[i] ?? e.sessionMs,
    phase: corr.eventPhase[i] ?? e.phase,
  }));
  const xruns: ReportXrun[] = c.xruns.map((x, i) => ({
    index: i,
    timeMs: round(x.timeMs, 3),
    monotonicNs: x.monotonicNs,
    durationMs: x.durationMs,
    phase: corr.xrunPhase[i] ?? null,
    kernelEventIndex: corr.xrunToEvent[i] ?? null,
  }));
  const phases: ReportPhase[] = c.phases.map((p) => {
    const n = xruns.filter((x) => x.phase === p.name).length;
    return {
      name: p.name,
      kind: p.kind,
      startMs: p.startMs,
      endMs: p.endMs,
      xruns: n,
      xrunsPerMin: round(perMin(n, p.endMs - p.startMs)),
      kernelEvents: events.filter((e) => e.phase === p.name).length,
      throughput: p.throughput,
      headroom: summarizeHeadroom(p.headroomSamplesUs),
    };
  });
  const classCounts = { kernel: 0, idle: 0, user: 0, none: 0 };
  // The report's class shares keep format 1's four classes (detector-only counted as none).
  for (const e of events) classCounts[toBundleV1Class(e.offender.class)]++;
  const total = events.length;
  const classShares: ClassShares = {
    kernel: total ? classCounts.kernel / total : 0,
    idle: total ? classCounts.idle / total : 0,
    user: total ? classCounts.user / total : 0,
    none: total ? classCounts.none / total : 0,
  };
  const offenders: ReportOffender[] = c.offenders.map((o) => {
    const perPhase: Record<string, number> = {};
    for (const e of events) {
      if (e.offender.class === 'kernel' && e.offender.signature === o.signature) {
        const k = e.phase ?? '(outside phases)';
        perPhase[k] = (perPhase[k] ?? 0) + 1;
      }
    }
    return { ...o, phases: perPhase };
  });
  const matched = corr.pairs.length;
  const exitCode =
    xruns.length > 0 || (c.params.maxXruns !== null && xruns.length > c.params.maxXruns) ? 2 : 0;
  const report: SessionReport = {
    conclusion: [],
    suggestions: [],
    xruns,
    injectedXruns: c.xruns.filter((x) => x.injected === true).length,
    kernelCapture: {
      source: c.capture.source,
      lostMessages: c.capture.lostMessages,
      pcm: c.capture.pcm,
      mask: c.capture.mask,
    },
    events,
    offenders,
    periodChoice: c.periodChoice ?? null,
    loadEffect: computeLoadEffect(phases, events),
    classShares,
    phases,
    correlation: {
      clockAlignment: c.clockAlignment,
      offsetNs: c.offsetNs,
      windowMs: corr.window.beforeMs,
      matched,
      unmatchedXruns: corr.unmatchedXruns.length,
      unmatchedKernelEvents: corr.unmatchedKernelEvents.length,
      otherStreamEvents: corr.otherStreamEvents.length,
      matchRatio: xruns.length ? round(matched / xruns.length, 3) : null,
    },
    params: c.params,
    host: c.host,
    limitations: c.limitations,
    warnings: c.warnings,
    durationMs: c.durationMs,
    bundle: c.bundle,
    files: c.files,
    exitCode,
  };
  const { conclusion, suggestions } = concludeSession(report, c.policy, c.bufferMs);
  report.conclusion = conclusion;
  report.suggestions = suggestions;
  return report;
}

/**
 * The exact `xrunhunt try` line that proves a suggestion on this machine: the same device,
 * period and the phase that had the most xruns, so the A/B rounds repeat what went wrong.
 */
export function tryLine(knobs: string, r: SessionReport): string {
  const p = r.params;
  const worst = [...r.phases].sort((a, b) => b.xrunsPerMin - a.xrunsPerMin)[0];
  const phase = worst && worst.xruns > 0 ? `${worst.kind}:30s` : p.phasePlan;
  return `xrunhunt try ${knobs} --device ${p.device} --period ${p.periodFrames} --phases ${phase}`;
}

/** Suggestions keyed by where the top offender lives (prefix of the function name). */
const OFFENDER_ADVICE: { test: RegExp; advice: string; knobs?: string }[] = [
  {
    test: /filemap|folio|writeback|ext4|xfs|btrfs|jbd2|blk_|bio_|page_cache|pagecache/,
    advice:
      'the offender is in file-system / page-cache code: lower the dirty-page limits (e.g. sysctl vm.dirty_bytes=67108864 vm.dirty_background_bytes=16777216) and keep audio files off the busy disk',
    knobs: 'vm.dirty_bytes=64M vm.dirty_background_bytes=16M',
  },
  {
    test: /^test_(un)?lock|test_lockup|preemptirq/,
    advice:
      'the offender is a test module that disables interrupts on purpose (test_lockup / preemptirq_delay_test): the ranking works; unload it',
  },
  {
    test: /usb|xhci|ehci|urb/,
    advice: 'the offender is USB interrupt handling: try another USB port / controller',
    knobs: 'irq.affinity=1',
  },
  {
    test: /i915|amdgpu|nouveau|drm_/,
    advice: 'the offender is the graphics driver: try a newer kernel or driver',
  },
];

/** Writes the conclusion lines and suggestions (pure wording rules). */
export function concludeSession(
  r: SessionReport,
  policy: string | null,
  bufferMs: number,
): { conclusion: string[]; suggestions: string[] } {
  const conclusion: string[] = [];
  const suggestions: string[] = [];
  const n = r.xruns.length;
  const minutes = r.durationMs / 60_000;
  const p = r.params;
  const config = `period ${p.periodFrames} × ${p.periods} at ${p.rateHz} Hz (${round(bufferMs, 2)} ms buffer) on ${p.device}`;
  const quiet = r.phases.filter((ph) => ph.xruns === 0 && ph.endMs > ph.startMs);
  const loud = [...r.phases]
    .filter((ph) => ph.xruns > 0)
    .sort((a, b) => b.xrunsPerMin - a.xrunsPerMin);

  if (n === 0) {
    conclusion.push(
      `No xruns in ${fmtMinutes(minutes)} of playback at ${config}` +
        (r.phases.length ? `, under ${r.phases.map((ph) => `\`${ph.kind}\``).join(', ')}.` : '.'),
    );
    if (r.events.length > 0) {
      conclusion.push(
        `The kernel still logged ${r.events.length} XRUN event(s) on other streams or without a PCM.`,
      );
    }
    suggestions.push(
      `period ${p.periodFrames} is safe under these loads here; to find the limit, try --period ${Math.max(16, p.periodFrames / 2)} (or run "xrunhunt stress")`,
    );
  } else {
    const worst = loud[0];
    conclusion.push(
      `${n} xrun${n === 1 ? '' : 's'} in ${fmtMinutes(minutes)} (${round(perMin(n, r.durationMs))}/min) at ${config}` +
        (worst ? `; most under \`${worst.kind}\` (${worst.xruns}, ${worst.xrunsPerMin}/min)` : '') +
        '.',
    );
    const injected = r.injectedXruns;
    if (injected > 0) {
      conclusion.push(
        `${injected} of them followed a stall injected on purpose (--inject-stall): the self-test shows xruns are detected and timed here.`,
      );
    }
    const quietIdle = quiet.some((ph) => ph.kind === 'idle');
    const loudIdle = loud.some((ph) => ph.kind === 'idle');
    const loudLoad = loud.some((ph) => ph.kind !== 'idle');
    const added = r.loadEffect?.phases ?? [];
    if (
      injected < n &&
      quietIdle &&
      loudLoad &&
      added.length > 0 &&
      !added.some((a) => a.significant)
    ) {
      // Zero in a short idle phase against a few under load is not yet evidence.
      const best = [...added].sort((a, b) => a.pValue - b.pValue)[0]!;
      conclusion.push(
        `No xruns under ${quiet.map((ph) => `\`${ph.kind}\``).join(', ')} and ${n - injected} under load: too few to say the load causes them (exact test against idle, p = ${best.pValue.toFixed(2)} at best); run longer phases (e.g. --phases idle:60s,${best.kind}:60s).`,
      );
    } else if (injected < n && quietIdle && loudLoad) {
      conclusion.push(
        `No xruns under ${quiet.map((ph) => `\`${ph.kind}\``).join(', ')}: the xruns come with the load, not the setup.`,
      );
    } else if (injected < n && loudIdle && quiet.length > 0) {
      conclusion.push(
        `Xruns even without load, none under ${quiet.map((ph) => `\`${ph.kind}\``).join(', ')}: the buffer or the writer's scheduling is too tight on its own.`,
      );
    }
  }

  if (r.periodChoice) conclusion.push(describePeriodChoice(r.periodChoice));
  conclusion.push(...concludeLoadEffect(r));

  const top = r.offenders[0];
  const kernelEvents = r.events.filter((e) => e.offender.class === 'kernel').length;
  if (top && kernelEvents > 0) {
    const phases = Object.entries(top.phases).sort((a, b) => b[1] - a[1]);
    conclusion.push(
      `Top offender: \`${offenderName(top)}\` in ${pct(top.count / kernelEvents)} of the dumps that interrupted kernel code (${top.count} of ${kernelEvents}; ${pct(top.share)} of all ${r.events.length} kernel events)` +
        (phases[0] ? `, mostly under \`${phases[0][0]}\`` : '') +
        ': it was running with interrupts (or preemption) held off when the period interrupt came late.',
    );
    const advice = OFFENDER_ADVICE.find((a) =>
      a.test.test(`${top.function ?? ''} ${top.module ?? ''}`),
    );
    if (advice)
      suggestions.push(
        advice.knobs ? `${advice.advice}; prove it: ${tryLine(advice.knobs, r)}` : advice.advice,
      );
    if (!r.host.threadirqs) {
      suggestions.push(
        'boot with "threadirqs" (and give the sound card IRQ thread a high priority, e.g. with rtirq) so other interrupt work can be preempted',
      );
    }
  }
  if (r.events.length > 0) {
    const s = r.classShares;
    if (s.idle >= 0.5) {
      conclusion.push(
        `${pct(s.idle)} of XRUN dumps interrupted the idle loop: the CPU was asleep, so the period interrupt itself came late (deep C-states / power management), not kernel code.`,
      );
      suggestions.push(
        `limit deep C-states (kernel args "processor.max_cstate=1 intel_idle.max_cstate=1", or a cpu-dma-latency request); prove it: ${tryLine('cpu.max_latency_us=0', r)}`,
      );
    }
    if (s.user >= 0.5) {
      conclusion.push(
        `${pct(s.user)} of XRUN dumps interrupted user space: no kernel code held interrupts off; the interrupt was delivered late or the buffer is simply too small.`,
      );
    }
  }
  const c = r.correlation;
  if (n > 0 && r.kernelCapture.pcm !== null && r.kernelCapture.source !== 'none') {
    if (c.unmatchedXruns > 0) {
      conclusion.push(
        `${c.unmatchedXruns} of ${n} userspace xruns had no kernel XRUN dump for ${r.kernelCapture.pcm}: the application was late (scheduling, not an interrupt-off section).`,
      );
    }
  }
  if (n - r.injectedXruns > 0 && policy !== null && !/FIFO|RR/.test(policy)) {
    conclusion.push(
      `The writer thread ran as ${policy}, not real-time: scheduling delays alone can explain xruns.`,
    );
    suggestions.push(
      `run as root or grant real-time rights (ulimit -r / rtprio in limits.conf), then use --rt-priority 80; prove it: ${tryLine('player.priority=80', r)}`,
    );
  }
  // Deliberately injected stalls prove the detection; they are no reason to change anything.
  if (n - r.injectedXruns > 0 && loud.length > 0) {
    suggestions.push(
      `try a larger buffer: --period ${p.periodFrames * 2} (or run "xrunhunt stress" to find the smallest xrun-free period per load)`,
    );
  }
  if (n - r.injectedXruns > 0 && (r.host.preempt === 'none' || r.host.preempt === 'voluntary')) {
    suggestions.push(
      `the kernel runs preempt=${r.host.preempt}: a "preempt=full" boot (PREEMPT_DYNAMIC kernels) shortens non-preemptible sections`,
    );
  }
  if (r.events.length === 0 && r.limitations.length > 0) {
    const first = r.limitations[0]!;
    conclusion.push(
      first.startsWith('No kernel') ? first : `No kernel XRUN dumps were captured. ${first}`,
    );
  }
  return { conclusion, suggestions };
}

/**
 * The idle baseline in words: on a machine (or emulator) that drops out with no load at all,
 * what matters is what each load adds, and which offenders it brings.
 */
export function concludeLoadEffect(r: SessionReport): string[] {
  const fx = r.loadEffect;
  // An idle-only plan (the main job's demonstration, `--phases idle:20s`) has no load to weigh
  // against the baseline: sentences about what the load adds would be about nothing.
  if (!fx || fx.baseline.xruns === 0 || fx.phases.length === 0) return [];
  const lines: string[] = [];
  const base = fx.baseline;
  const added = fx.phases.filter((p) => p.significant);
  lines.push(
    `Idle baseline: ${base.xrunsPerMin}/min with no load (${base.xruns} in ${fmtMinutes(base.ms / 60_000)}): that much comes from the machine itself, not the load.` +
      (added.length
        ? ` Load adds: ${added.map((p) => `\`${p.kind}\` +${p.excessXrunsPerMin}/min (${p.xrunsPerMin}/min${p.ratio === null ? '' : `, ${p.ratio}× idle`})`).join('; ')}.`
        : ' No load phase raised the rate significantly above it.'),
  );
  const top = fx.offenders[0];
  if (top) {
    lines.push(
      `Most added under load: \`${offenderName(top)}\` +${top.excessPerMin}/min under \`${top.kind}\` (${top.loadCount} dumps, ${top.loadPerMin}/min; idle ${top.idlePerMin}/min)` +
        (fx.offenders.length > 1
          ? `; then ${fx.offenders
              .slice(1, 3)
              .map((o) => `\`${offenderName(o)}\` +${o.excessPerMin}/min`)
              .join(', ')}`
          : '') +
        '.',
    );
  }
  const overall = r.offenders[0];
  if (overall && !fx.offenders.some((o) => o.signature === overall.signature)) {
    lines.push(
      `The most frequent offender overall, \`${offenderName(overall)}\`, is not significantly more frequent under load than idle: it is there without load too (the setup, a driver, or the emulator), not what the load brings.`,
    );
  }
  return lines;
}

function fmtMinutes(min: number): string {
  const s = Math.round(min * 60);
  return s < 120 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}
