// Pure: a FleetFilter as WHERE clauses over the fleet store's tables (store.ts, and the same
// tables in PostgreSQL: src/store/postgres-schema.ts), in SQL both databases read, with
// named @parameters (never values in the SQL text: filter values come from a query string;
// the PostgreSQL reader turns the names into $n positions).
// Events carry copies of their bundle's kernel, preemption model, capture backend and time,
// so the event clause needs no join; the bundle clause (the denominators) checks drivers and
// cards through bundle_drivers / bundle_cards.
import type { FleetFilter } from './fleet-reader.js';

export type SqlParams = Record<string, string | number>;

export interface FilterSql {
  /** Conditions on `bundles b` (never empty: 'TRUE' when there is nothing to check). */
  bundleWhere: string;
  /** Conditions on `events` (unqualified columns), without the offender-class filter. */
  eventWhere: string;
  /** The offender-class condition on `events` ('TRUE' when every class is selected). */
  classWhere: string;
  params: SqlParams;
}

const nonEmpty = (list: readonly string[] | undefined): list is readonly string[] =>
  list !== undefined && list.length > 0;

/** The WHERE clauses and parameters of a filter; `defaultClasses` applies when it names none. */
export function filterSql(
  filter: FleetFilter,
  defaultClasses: readonly string[] | null = ['kernel'],
): FilterSql {
  const params: SqlParams = {};
  const bundle: string[] = [];
  const event: string[] = [];
  const inList = (prefix: string, values: readonly string[]): string => {
    const names = values.map((v, i) => {
      params[`${prefix}${i}`] = v;
      return `@${prefix}${i}`;
    });
    return `(${names.join(', ')})`;
  };
  const both = (column: string, prefix: string, values: readonly string[] | undefined): void => {
    if (!nonEmpty(values)) return;
    const list = inList(prefix, values);
    bundle.push(`b.${column} IN ${list}`);
    event.push(`${column} IN ${list}`);
  };
  both('kernel_release', 'k', filter.kernelReleases);
  both('preempt', 'p', filter.preempts);
  both('capture_backend', 'cb', filter.captureBackends);
  if (nonEmpty(filter.drivers)) {
    const list = inList('d', filter.drivers);
    bundle.push(
      `EXISTS (SELECT 1 FROM bundle_drivers bd WHERE bd.bundle_id = b.id AND bd.driver IN ${list})`,
    );
    event.push(`driver IN ${list}`);
  }
  if (nonEmpty(filter.cards)) {
    const list = inList('c', filter.cards);
    bundle.push(
      `EXISTS (SELECT 1 FROM bundle_cards bc WHERE bc.bundle_id = b.id AND bc.card IN ${list})`,
    );
    event.push(`card IN ${list}`);
  }
  if (filter.sinceMs !== undefined && filter.sinceMs !== null) {
    params['since'] = filter.sinceMs;
    bundle.push('b.created_ms >= @since');
    event.push('created_ms >= @since');
  }
  if (filter.untilMs !== undefined && filter.untilMs !== null) {
    params['until'] = filter.untilMs;
    bundle.push('b.created_ms < @until');
    event.push('created_ms < @until');
  }
  if (nonEmpty(filter.breakdownClasses)) {
    event.push(`breakdown_class IN ${inList('bd', filter.breakdownClasses)}`);
  }
  // A breakdown class names events of any offender class (a detector-only stack, a kernel one).
  const classes = nonEmpty(filter.offenderClasses)
    ? filter.offenderClasses
    : nonEmpty(filter.breakdownClasses)
      ? null
      : defaultClasses;
  const classWhere = classes && classes.length > 0 ? `class IN ${inList('cl', classes)}` : 'TRUE';
  return {
    bundleWhere: bundle.length > 0 ? bundle.join(' AND ') : 'TRUE',
    eventWhere: event.length > 0 ? event.join(' AND ') : 'TRUE',
    classWhere,
    params,
  };
}

/** Whether the store's rollup tables can answer this filter (no card, backend, breakdown or time filter). */
export function rollupAnswers(filter: FleetFilter): boolean {
  return (
    !nonEmpty(filter.cards) &&
    !nonEmpty(filter.captureBackends) &&
    !nonEmpty(filter.breakdownClasses) &&
    (filter.sinceMs ?? null) === null &&
    (filter.untilMs ?? null) === null
  );
}
