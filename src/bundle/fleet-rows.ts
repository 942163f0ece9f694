// Pure: one validated bundle → the rows the fleet store keeps. Each kernel event carries the
// facts the ranking groups by (kernel, driver of the card that raised it, preemption model,
// load kind of the phase it happened in), so ranking is one GROUP BY, not a re-read.
import type { Bundle, BundleCard, BundleEvent } from './schema.js';
import type { BundleBreakdownPart } from './schema-breakdown.js';

export interface BundleRow {
  hash: string;
  machineId: string;
  kind: string;
  createdAt: string;
  /** createdAt in ms since the epoch (for --since and first/last seen). */
  createdMs: number;
  kernelRelease: string;
  preempt: string;
  arch: string;
  /** Sorted, comma-separated drivers of all cards. */
  drivers: string;
  playbackMs: number;
  durationMs: number;
  xruns: number;
  kernelEvents: number;
  rulesVersion: string;
  toolVersion: string;
  /** params.captureBackend; 'none' for bundles without params (analyze of a saved log). */
  captureBackend: string;
  /** Distinct card names of the host (host.cards[].name), sorted. */
  cards: string[];
}

export interface EventRow {
  idx: number;
  kind: string;
  class: string;
  function: string | null;
  module: string | null;
  signature: string | null;
  phase: string | null;
  loadKind: string;
  driver: string;
  /** Name of the card that raised it (same card as `driver`). */
  card: string;
  /** JSON array of frames; stored once per distinct stack. */
  framesJson: string;
  /** The flight recorder breakdown's class (format 2), null when the event has none. */
  breakdownClass: string | null;
  /** Its largest part as blockerLabel() says it, null without a breakdown. */
  topBlocker: string | null;
}

/**
 * The key a breakdown's largest part is ranked by across the fleet: kind and name, and for a
 * task its priority ("task dd (prio 120)", "irq snd_hda_intel:card0", "irq-latency test_unlock").
 * Pids are left out: they change between runs, comms do not.
 */
export function blockerLabel(p: BundleBreakdownPart): string {
  return p.kind === 'task' && p.prio !== undefined
    ? `task ${p.name} (prio ${p.prio})`
    : `${p.kind} ${p.name}`;
}

/** The card index in a PCM name like "pcmC1D0p", or null. */
/**
 * One event's values in the `events` table's column order (bundle_id, idx, kind, class,
 * function, module, signature, phase, load_kind, driver, stack_id, machine, kernel_release,
 * preempt, created_ms, card, capture_backend, breakdown_class, top_blocker): the one order
 * both stores insert in.
 */
export function eventColumnValues(
  bundleId: number,
  e: EventRow,
  stackId: number,
  machine: number,
  b: Pick<BundleRow, 'kernelRelease' | 'preempt' | 'createdMs' | 'captureBackend'>,
): (string | number | null)[] {
  return [
    bundleId,
    e.idx,
    e.kind,
    e.class,
    e.function,
    e.module,
    e.signature,
    e.phase,
    e.loadKind,
    e.driver,
    stackId,
    machine,
    b.kernelRelease,
    b.preempt,
    b.createdMs,
    e.card,
    b.captureBackend,
    e.breakdownClass,
    e.topBlocker,
  ];
}

export function pcmCardIndex(pcm: string | null): number | null {
  const m = pcm ? /^pcmC(\d+)D\d+[pc]?$/.exec(pcm) : null;
  return m ? Number(m[1]) : null;
}

function eventCard(bundle: Bundle, ev: BundleEvent): BundleCard | undefined {
  const idx = pcmCardIndex(ev.pcm);
  const cards = bundle.host.cards;
  return (idx === null ? undefined : cards.find((c) => c.index === idx)) ?? cards[0];
}

const cardName = (c: BundleCard | undefined): string => c?.name || c?.id || 'unknown';

/** Maps a bundle to its store rows. `hash` is its content hash (content-hash.ts). */
export function bundleToRows(
  bundle: Bundle,
  hash: string,
): { bundle: BundleRow; events: EventRow[] } {
  const phaseKind = new Map(bundle.phases.map((p) => [p.name, p.kind] as const));
  const drivers = [...new Set(bundle.host.cards.map((c) => c.driver))].sort().join(',');
  return {
    bundle: {
      hash,
      machineId: bundle.machineId,
      kind: bundle.kind,
      createdAt: bundle.createdAt,
      createdMs: Date.parse(bundle.createdAt),
      kernelRelease: bundle.host.kernelRelease,
      preempt: bundle.host.preempt,
      arch: bundle.host.arch,
      drivers: drivers || 'unknown',
      playbackMs: bundle.playbackMs,
      durationMs: bundle.durationMs,
      xruns: bundle.xruns.length,
      kernelEvents: bundle.events.length,
      rulesVersion: bundle.rulesVersion,
      toolVersion: bundle.tool.version,
      captureBackend: bundle.params?.captureBackend ?? 'none',
      cards:
        bundle.host.cards.length > 0
          ? [...new Set(bundle.host.cards.map(cardName))].sort()
          : ['unknown'],
    },
    events: bundle.events.map((ev, idx) => ({
      idx,
      kind: ev.kind,
      class: ev.offender.class,
      function: ev.offender.function,
      module: ev.offender.module,
      signature: ev.offender.signature,
      phase: ev.phase,
      loadKind: (ev.phase !== null ? phaseKind.get(ev.phase) : undefined) ?? ev.phase ?? 'unknown',
      driver: eventCard(bundle, ev)?.driver || 'unknown',
      card: cardName(eventCard(bundle, ev)),
      framesJson: JSON.stringify(ev.frames),
      breakdownClass: ev.breakdown?.cls ?? null,
      topBlocker: ev.breakdown?.parts[0] ? blockerLabel(ev.breakdown.parts[0]) : null,
    })),
  };
}
