// The ranking's SQL, shared by the SQLite and PostgreSQL stores (the tables are the same).
// `since` is the placeholder for --since in the backend's style (@since, $1); every count is
// cast so both drivers hand back plain numbers.
import type { GroupBy } from '../bundle/store.js';

/** SQL for the grouping key on the events and rollup tables. */
const EVENT_KEY: Record<GroupBy | 'none', string> = {
  none: "''",
  kernel: 'kernel_release',
  driver: 'driver',
  preempt: 'preempt',
  load: 'load_kind',
};

export interface RankingSql {
  groups: string;
  facets: string;
  machines: string;
  rulesVersions: string;
}

/**
 * The four ranking queries for a grouping and an optional --since placeholder. `collate` makes
 * text MIN/ORDER BY compare bytes as SQLite does (PostgreSQL: ' COLLATE "C"').
 */
export function rankingSql(by: GroupBy | null, since: string | null, collate = ''): RankingSql {
  const key = EVENT_KEY[by ?? 'none'];
  const sinceSql = since === null ? '' : `AND b.created_ms >= ${since}`;
  const eSince = since === null ? '' : `AND created_ms >= ${since}`;
  const totals = (machine: string, ms: string, bundles = 'COUNT(*)'): string =>
    `${bundles} AS bundles, COUNT(DISTINCT ${machine}) AS machines, SUM(${ms}) AS ms`;
  const groups: Record<GroupBy | 'none', string> = {
    none: `SELECT '' AS grp, ${totals('machine_id', 'playback_ms')} FROM bundles b WHERE TRUE ${sinceSql}`,
    kernel: `SELECT kernel_release AS grp, ${totals('machine_id', 'playback_ms')}
             FROM bundles b WHERE TRUE ${sinceSql} GROUP BY kernel_release`,
    preempt: `SELECT preempt AS grp, ${totals('machine_id', 'playback_ms')}
             FROM bundles b WHERE TRUE ${sinceSql} GROUP BY preempt`,
    driver: `SELECT d.driver AS grp, ${totals('b.machine_id', 'b.playback_ms')}
             FROM bundle_drivers d JOIN bundles b ON b.id = d.bundle_id
             WHERE TRUE ${sinceSql} GROUP BY d.driver`,
    load: `SELECT p.kind AS grp, ${totals('b.machine_id', 'p.ms', 'COUNT(DISTINCT b.id)')}
             FROM phases p JOIN bundles b ON b.id = p.bundle_id
             WHERE TRUE ${sinceSql} GROUP BY p.kind`,
  };
  // Full history: the rollup (one row per combination already). --since: the events.
  const facets =
    since === null
      ? `SELECT ${key} AS grp, class, NULLIF(signature, '') AS signature, kernel_release AS kernel,
           driver, preempt, load_kind AS load, n, first_ms AS first, last_ms AS last,
           stack_id AS stack, function, module FROM rollup`
      : `SELECT ${key} AS grp, class, signature, kernel_release AS kernel, driver, preempt,
           load_kind AS load, COUNT(*) AS n, MIN(created_ms) AS first, MAX(created_ms) AS last,
           MAX(stack_id) AS stack, MIN(function${collate}) AS function, MIN(module${collate}) AS module
         FROM events WHERE TRUE ${eSince}
         GROUP BY ${by === null ? '' : `${key}, `}class, signature, kernel_release, driver, preempt, load_kind`;
  const machines =
    since !== null
      ? `SELECT ${key} AS grp, signature, COUNT(DISTINCT machine) AS machines FROM events
         WHERE class = 'kernel' AND signature IS NOT NULL ${eSince} GROUP BY ${by === null ? '' : `${key}, `}signature`
      : by === null
        ? `SELECT '' AS grp, signature, COUNT(*) AS machines FROM rollup_sig_machines
           GROUP BY signature`
        : `SELECT ${key} AS grp, signature, COUNT(DISTINCT machine) AS machines
           FROM rollup_machines GROUP BY ${key}, signature`;
  const rulesVersions = `SELECT rules_version AS value, COUNT(*) AS count FROM bundles b
       WHERE TRUE ${sinceSql} GROUP BY rules_version ORDER BY count DESC, rules_version${collate}`;
  return { groups: groups[by ?? 'none'], facets, machines, rulesVersions };
}
