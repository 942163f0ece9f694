// What every run (session, watch, stress cell) is given: where to read the machine, where
// to journal and write, how to talk to the user, and the machine access every run needs.
import type { Readable, Writable } from 'node:stream';
import type { AsoundDiscovery } from '../proc/index.js';
import type { SelectCapture } from './kernel-capture.js';

export interface RunOptions {
  roots: { procRoot: string; sysRoot: string; bootRoot: string };
  journalDir: string;
  /** Every folder a killed run's journal may be in (JournalFolder.searchDirs); default [journalDir]. */
  journalSearchDirs?: readonly string[];
  /** Bundle folder; null writes nothing (stress cells). */
  outDir: string | null;
  toolVersion: string;
  machineId: () => string;
  stderr: Writable;
  stdin: Readable;
  /** Ask before restoring a killed run's settings (terminal). */
  interactive: boolean;
  /** Print progress lines to stderr (TTY). */
  progress: boolean;
}

/** The machine access every run needs, injectable. */
export interface RunDeps {
  now: () => bigint;
  discover: (procRoot: string) => AsoundDiscovery;
  selectCapture: SelectCapture;
}
