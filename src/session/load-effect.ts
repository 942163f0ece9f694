// What each load phase adds over the idle baseline: xrun rates and per-offender kernel-event
// rates under load against the same session's idle phases. On a noisy machine (an emulator, a
// laptop in power saving) the idle phase already has xruns and dumps; a ranking of everything
// then names the background, not the load. Pure: report pieces in, comparison out.
import { compareRates } from '../stats/poisson-excess.js';
import type { SessionKernelEvent } from './events.js';
import type {
  LoadEffect,
  LoadEffectOffender,
  LoadEffectPhase,
  ReportPhase,
} from './report-model.js';

/** Below this one-sided p-value an excess over idle counts as caused by the load. */
export const LOAD_EFFECT_P = 0.01;
/** Most enriched offenders kept. */
const MAX_OFFENDERS = 20;

const round = (v: number, digits = 1): number => Number(v.toFixed(digits));
const span = (p: ReportPhase): number => Math.max(0, p.endMs - p.startMs);

interface KindWindow {
  kind: string;
  ms: number;
  xruns: number;
  names: Set<string>;
}

// Groups phases by load kind (two `write` phases are one window), idle apart.
function windowsByKind(phases: readonly ReportPhase[]): Map<string, KindWindow> {
  const out = new Map<string, KindWindow>();
  for (const p of phases) {
    const w = out.get(p.kind) ?? { kind: p.kind, ms: 0, xruns: 0, names: new Set<string>() };
    w.ms += span(p);
    w.xruns += p.xruns;
    w.names.add(p.name);
    out.set(p.kind, w);
  }
  return out;
}

/** Computes what each load kind adds over the idle phases; null without an idle phase. */
export function computeLoadEffect(
  phases: readonly ReportPhase[],
  events: readonly SessionKernelEvent[],
): LoadEffect | null {
  const windows = windowsByKind(phases);
  const idle = windows.get('idle');
  if (!idle || idle.ms <= 0) return null;
  const loads = [...windows.values()].filter((w) => w.kind !== 'idle' && w.ms > 0);
  const kindOfPhase = new Map<string, string>();
  for (const p of phases) kindOfPhase.set(p.name, p.kind);

  // Kernel-code events per (signature, kind).
  const counts = new Map<string, Map<string, number>>();
  const names = new Map<string, { function: string | null; module: string | null }>();
  for (const e of events) {
    if (e.offender.class !== 'kernel' || e.offender.signature === null || e.phase === null)
      continue;
    const kind = kindOfPhase.get(e.phase);
    if (kind === undefined) continue;
    const sig = e.offender.signature;
    let perKind = counts.get(sig);
    if (!perKind) counts.set(sig, (perKind = new Map()));
    perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
    if (!names.has(sig))
      names.set(sig, { function: e.offender.function, module: e.offender.module });
  }

  const phaseEffects: LoadEffectPhase[] = loads.map((w) => {
    const c = compareRates(idle.xruns, idle.ms, w.xruns, w.ms);
    return {
      kind: w.kind,
      phases: [...w.names],
      ms: w.ms,
      xruns: w.xruns,
      xrunsPerMin: round(c.testPerMin),
      excessXrunsPerMin: round(c.excessPerMin),
      ratio: c.ratio === null ? null : round(c.ratio, 2),
      pValue: c.pValue,
      significant: c.pValue < LOAD_EFFECT_P && c.excessPerMin > 0,
    };
  });

  const offenders: LoadEffectOffender[] = [];
  for (const [signature, perKind] of counts) {
    const idleCount = perKind.get('idle') ?? 0;
    let best: LoadEffectOffender | null = null;
    for (const w of loads) {
      const n = perKind.get(w.kind) ?? 0;
      if (n === 0) continue;
      const c = compareRates(idleCount, idle.ms, n, w.ms);
      if (!(c.pValue < LOAD_EFFECT_P && c.excessPerMin > 0)) continue;
      if (best && c.excessPerMin <= best.excessPerMin) continue;
      best = {
        signature,
        ...names.get(signature)!,
        kind: w.kind,
        idleCount,
        idlePerMin: round(c.baselinePerMin),
        loadCount: n,
        loadPerMin: round(c.testPerMin),
        excessPerMin: round(c.excessPerMin),
        ratio: c.ratio === null ? null : round(c.ratio, 2),
        pValue: c.pValue,
      };
    }
    if (best) offenders.push(best);
  }
  offenders.sort(
    (a, b) => b.excessPerMin - a.excessPerMin || a.signature.localeCompare(b.signature),
  );
  return {
    baseline: {
      phases: [...idle.names],
      ms: idle.ms,
      xruns: idle.xruns,
      xrunsPerMin: round((idle.xruns * 60_000) / idle.ms),
      kernelCodeEvents: [...counts.values()].reduce((n, m) => n + (m.get('idle') ?? 0), 0),
    },
    phases: phaseEffects,
    offenders: offenders.slice(0, MAX_OFFENDERS),
  };
}
