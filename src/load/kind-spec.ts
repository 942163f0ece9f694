// The contract each load kind implements once, in its own file under ./kinds/: what the
// parent needs to plan and check the load, and the loop the worker child runs.
import type { WorkContext } from './work-context.js';
import type { WorkerConfig } from './worker-protocol.js';
import type { LoadKind } from './types.js';
import type { MemoryInfo } from './safety.js';

/** What a kind's loop reports back beyond counters (only `external` uses it). */
export interface KindOutcome {
  exited?: boolean;
  exitCode?: number | null;
  exitSignal?: string | null;
}

export interface KindSpec {
  kind: LoadKind;
  /** One line for `--help` and docs. */
  summary: string;
  /** What one op is, or undefined when the kind only moves bytes. */
  opsUnit: string | undefined;
  /** Which resource `sizeBytes` bounds: disk space, memory, or nothing. */
  sizeBounds: 'disk' | 'memory' | 'none';
  /** Default `--size` for the whole load (all workers); memory kinds see the machine's memory. */
  defaultSizeBytes(memory: MemoryInfo): number;
  /** Default worker count given the number of cores. */
  defaultWorkers(cores: number): number;
  /** Whether the parent runs worker processes at all (false for `idle`). */
  usesWorkers: boolean;
  /** The worker's loop: does the load until `ctx.tick()` says stop. Runs in the child process. */
  // Most kinds return nothing; only `external` has an outcome to report.
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type
  run(ctx: WorkContext, config: WorkerConfig): Promise<KindOutcome | void>;
}
