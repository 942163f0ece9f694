// FleetRanking → FleetView: what `aggregate --html` shows.
import type { FleetRanking, ValueCount } from '../bundle/store.js';
import type { FleetView } from './report-view.js';

const values = (list: readonly ValueCount[]): string[] =>
  list.map((v) => `${v.value} (${v.count})`);

/** Turns the store's ranking into the report's fleet view. */
export function fleetViewFromRanking(
  ranking: FleetRanking,
  facts: [string, string][] = [],
): FleetView {
  return {
    by: ranking.by,
    facts: [
      ...facts,
      [
        'signature rules',
        ranking.rulesVersions.map((v) => `${v.value} (${v.count})`).join(', ') || 'none',
      ],
      ...(ranking.sinceMs !== null
        ? ([['since', new Date(ranking.sinceMs).toISOString()]] as [string, string][])
        : []),
    ],
    groups: ranking.groups.map((g) => ({
      key: g.key,
      bundles: g.bundles,
      machines: g.machines,
      playbackHours: g.playbackHours,
      classes: { ...g.classes },
      more: g.more,
      rows: g.signatures.map((s) => ({
        signature: s.signature,
        function: s.function,
        module: s.module,
        incidents: s.incidents,
        machines: s.machines,
        share: s.share,
        kernels: values(s.kernels.list),
        preempt: values(s.preempts),
        drivers: values(s.drivers),
        loads: values(s.loads),
        perMachineHour: Number.isFinite(s.perMachineHour) ? s.perMachineHour : null,
        exampleStack: [...s.exampleStack],
      })),
    })),
    warnings: [],
  };
}
