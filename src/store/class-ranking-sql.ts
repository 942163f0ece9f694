// The per-class ranking's SQL, shared by the SQLite and PostgreSQL stores (same tables). An
// event's class is its flight recorder breakdown's class when it has one (bundle format 2:
// blocked-by-task, irq-latency, …), else its offender class (kernel, idle, user, none,
// detector-only); its culprit is the breakdown's largest part, else the offender signature.
// `p` names the backend's placeholders (@since/@cls; $1/$2).

/** The SQL expression of an event's class and of its culprit, on the events table. */
export const EVENT_CLASS_SQL = 'COALESCE(breakdown_class, class)';
export const EVENT_CULPRIT_SQL = "COALESCE(top_blocker, signature, '')";

export interface ClassRankingSql {
  /** cls, culprit, n, machines, first, last: one row per class × culprit. */
  culprits: string;
  /** cls, machines: distinct machines per class. */
  classes: string;
  /** bundles, machines, ms, events (of every class): the denominators. */
  totals: string;
}

/** The three queries for an optional --since and an optional --class (placeholders as given). */
export function classRankingSql(p: { since: string | null; cls: string | null }): ClassRankingSql {
  const since = p.since === null ? '' : `AND created_ms >= ${p.since}`;
  const where = `${since} ${p.cls === null ? '' : `AND ${EVENT_CLASS_SQL} = ${p.cls}`}`;
  return {
    culprits: `SELECT ${EVENT_CLASS_SQL} AS cls, ${EVENT_CULPRIT_SQL} AS culprit, COUNT(*) AS n,
        COUNT(DISTINCT machine) AS machines, MIN(created_ms) AS first, MAX(created_ms) AS last
      FROM events WHERE TRUE ${where} GROUP BY ${EVENT_CLASS_SQL}, ${EVENT_CULPRIT_SQL}`,
    classes: `SELECT ${EVENT_CLASS_SQL} AS cls, COUNT(DISTINCT machine) AS machines
      FROM events WHERE TRUE ${where} GROUP BY ${EVENT_CLASS_SQL}`,
    totals: `SELECT COUNT(*) AS bundles, COUNT(DISTINCT machine_id) AS machines,
        SUM(playback_ms) AS ms, (SELECT COUNT(*) FROM events WHERE TRUE ${since}) AS events
      FROM bundles WHERE TRUE ${since}`,
  };
}
