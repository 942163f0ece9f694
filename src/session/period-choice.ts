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

/** Picks the smallest nearly xrun-free period; else the one with the fewest xruns (largest on ties). */
export function choosePeriod(probes: readonly PeriodProbe[]): PeriodChoice | null {
  const ran = probes.filter((p) => p.xruns !== null);
  if (ran.length === 0) return null;
  const quiet = ran.filter(probePasses).sort((a, b) => a.periodFrames - b.periodFrames)[0];
  if (quiet) return { periodFrames: quiet.periodFrames, probes: [...probes], nearlyXrunFree: true };
  const best = [...ran].sort((a, b) => a.xruns! - b.xruns! || b.periodFrames - a.periodFrames)[0]!;
  return { periodFrames: best.periodFrames, probes: [...probes], nearlyXrunFree: false };
}

/** One line for the report: what was probed and what was taken. */
export function describePeriodChoice(c: PeriodChoice): string {
  const tried = c.probes
    .filter((p) => p.xruns !== null)
    .map((p) => `${p.periodFrames} (${p.xruns})`)
    .join(', ');
  return c.nearlyXrunFree
    ? `Period ${c.periodFrames} chosen by ${AUTO_PERIOD_PROBE_MS / 1000} s idle probes (--period auto): the smallest with at most ${AUTO_PERIOD_MAX_XRUNS} xrun idle; xruns per probe: ${tried}.`
    : `Period ${c.periodFrames} chosen by ${AUTO_PERIOD_PROBE_MS / 1000} s idle probes (--period auto), but no period tried was nearly xrun-free idle (xruns per probe: ${tried}): this machine drops out with no load at all, so what follows mixes its own noise with the load's effect (see "What the load adds over idle").`;
}
