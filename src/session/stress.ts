// `stress`: the matrix of periods × loads, automated the way alsa-lib's latency test grows
// the buffer until a run passes. Pure parts: parsing the lists, deciding which cells still
// need running, and summarising the matrix.
import { UsageError } from '../errors.js';
import { LOAD_KINDS, type LoadKind } from '../load/index.js';
import { parseInteger } from '../units.js';
import type { JunitCase } from '../run/junit.js';

export interface StressCell {
  load: string;
  periodFrames: number;
  /** null: not run (a smaller period already passed, or stopped early). */
  xruns: number | null;
  xrunsPerMin: number | null;
  kernelEvents: number | null;
  topOffender: string | null;
  durationMs: number | null;
  /** Why the cell was not run, or what went wrong in it. */
  note: string | null;
}

export interface StressSummary {
  periods: number[];
  loads: string[];
  cells: StressCell[];
  /** Per load: the smallest period with no xrun, null when every tried period had xruns. */
  smallestXrunFree: Record<string, number | null>;
  exitCode: number;
}

/** Parses `32,64,128` into ascending unique periods (frames). */
export function parsePeriodList(text: string): number[] {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.some((s) => s === '')) {
    throw new UsageError(
      `invalid --periods "${text}": expected frames separated by commas, e.g. 64,128,256`,
    );
  }
  const periods = parts.map((s) => parseInteger(s, '--periods entry (frames)', 16, 1 << 20));
  return [...new Set(periods)].sort((a, b) => a - b);
}

/** Parses `idle,write,metadata` into load kinds. */
export function parseLoadList(text: string): LoadKind[] {
  const parts = text.split(',').map((s) => s.trim());
  return parts.map((p) => {
    const kind = LOAD_KINDS.find((k) => k === p);
    if (!kind || kind === 'external') {
      throw new UsageError(
        `invalid --loads entry "${p}": expected one of ${LOAD_KINDS.filter((k) => k !== 'external').join(', ')}`,
      );
    }
    return kind;
  });
}

/** Whether a cell still needs running: all cells with --all, else until a period passes. */
export function cellNeeded(
  cells: readonly StressCell[],
  load: string,
  all: boolean,
  passes: (cell: StressCell) => boolean = (c) => c.xruns === 0,
): boolean {
  if (all) return true;
  return !cells.some((c) => c.load === load && passes(c));
}

/** Summarises a (possibly partly run) matrix; exit 2 when a load never ran xrun-free. */
export function summarizeStress(
  periods: number[],
  loads: string[],
  cells: StressCell[],
): StressSummary {
  const smallestXrunFree: Record<string, number | null> = {};
  for (const l of loads) {
    const pass = cells
      .filter((c) => c.load === l && c.xruns === 0)
      .map((c) => c.periodFrames)
      .sort((a, b) => a - b)[0];
    smallestXrunFree[l] = pass ?? null;
  }
  const anyFailed = Object.values(smallestXrunFree).some((v) => v === null);
  return { periods, loads, cells, smallestXrunFree, exitCode: anyFailed ? 2 : 0 };
}

/** Renders the matrix: loads down, periods across, xrun counts in the cells. */
export function renderStressText(
  s: StressSummary,
  rateHz: number,
  periodsPerBuffer: number,
): string {
  const head = [
    'load \\ period',
    ...s.periods.map((p) => `${p} (${((p * periodsPerBuffer * 1000) / rateHz).toFixed(1)} ms)`),
    'smallest xrun-free',
  ];
  const rows = [head];
  for (const l of s.loads) {
    const row = [l];
    for (const p of s.periods) {
      const c = s.cells.find((x) => x.load === l && x.periodFrames === p);
      row.push(c?.xruns === null || c === undefined ? '·' : String(c.xruns));
    }
    const best = s.smallestXrunFree[l];
    row.push(best === null || best === undefined ? 'none' : String(best));
    rows.push(row);
  }
  const w = head.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const lines = rows.map(
    (r) => '  ' + r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  '),
  );
  const out = ['Xruns per cell (· = not run: a smaller period already passed)', ...lines, ''];
  for (const l of s.loads) {
    const best = s.smallestXrunFree[l];
    out.push(
      best === null || best === undefined
        ? `  ${l}: xruns at every period tried; try larger periods`
        : `  ${l}: period ${best} (${((best * periodsPerBuffer * 1000) / rateHz).toFixed(1)} ms buffer) had no xruns`,
    );
  }
  const notes = s.cells.filter((c) => c.note);
  if (notes.length) {
    out.push('', 'Notes');
    for (const c of notes) out.push(`  - ${c.load} @ ${c.periodFrames}: ${c.note}`);
  }
  return out.join('\n') + '\n';
}

/** One JUnit case per cell: failed with xruns (top offender in the message), skipped when not run. */
export function stressJunitCases(s: StressSummary): JunitCase[] {
  return s.cells.map((c) => {
    const failed = c.xruns !== null && c.xruns > 0;
    const message = failed
      ? `${c.xruns} xrun(s) with ${c.load} at period ${c.periodFrames}${c.topOffender ? `; top offender ${c.topOffender}` : '; no kernel offender captured'}`
      : '';
    const ran = c.xruns !== null;
    return {
      name: `${c.load} @ period ${c.periodFrames}`,
      classname: `xrunhunt.stress.${c.load}`,
      timeSec: (c.durationMs ?? 0) / 1000,
      failure: failed
        ? { message, detail: `${message}\nkernel events: ${c.kernelEvents ?? 0}` }
        : null,
      skipped: ran
        ? null
        : c.note === null
          ? 'a smaller period already ran without xruns'
          : c.note === 'interrupted'
            ? 'interrupted'
            : null,
      error: !ran && c.note !== null && c.note !== 'interrupted' ? c.note : null,
    };
  });
}
