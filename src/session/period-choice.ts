// `--period auto`: the smallest period that is nearly xrun-free with no load on this machine
// (or in this emulator). A session at a period that drops out while idle ranks the machine's
// own noise; from the smallest nearly-quiet period up, what breaks comes with the load. Pure.
import type { StressCell } from './stress.js';

/** Periods tried, smallest first (frames). */
export const AUTO_PERIOD_CANDIDATES: readonly number[] = [64, 128, 256, 512, 1024, 2048];
/** Idle playback per candidate. */
export const AUTO_PERIOD_PROBE_MS = 6_000;
/** "Nearly xrun-free": at most this many xruns in one probe (10/min at 6 s). */
export const AUTO_PERIOD_MAX_XRUNS = 1;

/** One candidate's idle probe. */
export interface PeriodProbe {
  periodFrames: number;
  /** null: not run (error, or stopped). */
  xruns: number | null;
  durationMs: number | null;
  note: string | null;
}

/** What `--period auto` chose and why. */
export interface PeriodChoice {
  periodFrames: number;
  probes: PeriodProbe[];
  /** False when no candidate was nearly xrun-free (the largest quiet-most one was taken). */
  nearlyXrunFree: boolean;
}

// The probe-stop rule, shared by the stress loop: a period whose idle probe is nearly quiet.
export function probePasses(cell: Pick<StressCell, 'xruns'>): boolean {
  return cell.xruns !== null && cell.xruns <= AUTO_PERIOD_MAX_XRUNS;
}

// Xruns per second of a probe: failing probes stop at their second xrun, so their counts are
// alike and only the time they lasted tells them apart.
function xrunRate(p: PeriodProbe): number {
  return p.xruns! / Math.max(p.durationMs ?? AUTO_PERIOD_PROBE_MS, 1);
}

/**
 * Picks the smallest nearly xrun-free period; else the one with the lowest xrun rate (largest on
 * ties).
 */
export function choosePeriod(probes: readonly PeriodProbe[]): PeriodChoice | null {
  const ran = probes.filter((p) => p.xruns !== null);
  if (ran.length === 0) return null;
  const quiet = ran.filter(probePasses).sort((a, b) => a.periodFrames - b.periodFrames)[0];
  if (quiet) return { periodFrames: quiet.periodFrames, probes: [...probes], nearlyXrunFree: true };
  const best = [...ran].sort(
    (a, b) => xrunRate(a) - xrunRate(b) || b.periodFrames - a.periodFrames,
  )[0]!;
  return { periodFrames: best.periodFrames, probes: [...probes], nearlyXrunFree: false };
}

/** How long a probe that stopped at its xrun too many had played (s); null for a full one. */
export function probeStoppedAfterS(p: PeriodProbe): number | null {
  return p.durationMs !== null && p.durationMs < AUTO_PERIOD_PROBE_MS - 500
    ? Math.max(0.1, Math.round(p.durationMs / 100) / 10)
    : null;
}

/** A probe's result for the report: `64 (2 in 0.3 s)` for one stopped early, `256 (0)`. */
export function describeProbe(p: PeriodProbe): string {
  const s = probeStoppedAfterS(p);
  return s === null ? `${p.periodFrames} (${p.xruns})` : `${p.periodFrames} (${p.xruns} in ${s} s)`;
}

/** One line for the report: what was probed and what was taken. */
export function describePeriodChoice(c: PeriodChoice): string {
  const tried = c.probes
    .filter((p) => p.xruns !== null)
    .map(describeProbe)
    .join(', ');
  return c.nearlyXrunFree
    ? `Period ${c.periodFrames} chosen by ${AUTO_PERIOD_PROBE_MS / 1000} s idle probes (--period auto): the smallest with at most ${AUTO_PERIOD_MAX_XRUNS} xrun idle; xruns per probe (each stops at its first xrun over that): ${tried}.`
    : `Period ${c.periodFrames} chosen by ${AUTO_PERIOD_PROBE_MS / 1000} s idle probes (--period auto), but no period tried was nearly xrun-free idle (xruns per probe: ${tried}): this machine drops out with no load at all, so what follows mixes its own noise with the load's effect (see "What the load adds over idle").`;
}
