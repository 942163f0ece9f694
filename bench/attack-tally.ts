// The attack benches' shared bookkeeping (bench/attack-*.ts): per class, how many variants were
// tried and which the code did not withstand, and the table they end with.

/** One class of the issue (e.g. "30.1 setting writes through links") and its variants. */
export interface Tally {
  finding: string;
  tried: number;
  failures: string[];
  passed: string[];
}

/** The classes one bench run tried, in the order they were opened. */
export interface Tallies {
  readonly all: Tally[];
  /** Opens a class: every variant recorded on it counts in its row. */
  tally(finding: string): Tally;
}

// One list per bench run, so each bench prints only its own classes.
export function createTallies(): Tallies {
  const all: Tally[] = [];
  return {
    all,
    tally(finding) {
      const t: Tally = { finding, tried: 0, failures: [], passed: [] };
      all.push(t);
      return t;
    },
  };
}

// Counts one variant: withstood when problem is null, else a failure line naming it.
export function record(t: Tally, name: string, problem: string | null): void {
  t.tried++;
  if (problem) t.failures.push(`${name}: ${problem}`);
  else t.passed.push(name);
}

// The table a bench ends with (class, tried, failures; each failure, and with --list each
// variant that held), and the exit code: 1 when anything failed.
export function printTallies(tallies: readonly Tally[], list: boolean): void {
  const w = Math.max(...tallies.map((t) => t.finding.length));
  console.log(`${'class'.padEnd(w)}  tried  failures`);
  for (const t of tallies) {
    console.log(`${t.finding.padEnd(w)}  ${String(t.tried).padStart(5)}  ${t.failures.length}`);
    for (const f of t.failures) console.log(`  FAIL ${f}`);
    if (list) for (const p of t.passed) console.log(`  held ${p}`);
  }
  process.exitCode = tallies.some((t) => t.failures.length > 0) ? 1 : 0;
}
