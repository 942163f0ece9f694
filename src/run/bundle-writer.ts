// The one bundle writer of session and watch: creates the folder and its append-only event
// log at the start (every bus event, as it happens), writes bundle.json.gz, report.txt and
// the probes' files (kernel.log, ...) at the end — scrubbed unless --no-scrub — and closes
// the log last. A failed write is a warning in the report, never a lost run.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RULES_VERSION } from '../analysis/index.js';
import type { Bundle, BundleHost, CaptureBackend, ScrubKnown } from '../bundle/index.js';
import {
  createScrubber,
  folderScrubWarnings,
  gatherScrubKnown,
  scrubBundleFolder,
  scrubText,
} from '../bundle/index.js';
import type { EventLogWriter } from '../session/event-log.js';
import type { SessionEvent } from '../session/events.js';
import type { SessionReport } from '../session/report-model.js';
import { BUNDLE_FILES, openBundleEventLog, writeBundleFolder } from '../session/session-bundle.js';
import type { BundleFile } from './probe.js';
import { errorMessage } from '../errors.js';

export interface RunBundle {
  /** The folder (null: nothing is written, e.g. a stress cell). */
  readonly dir: string | null;
  /** The event log's path (null: none). */
  readonly logPath: string | null;
  /** The paths the report names. */
  readonly files: SessionReport['files'];
  /** Appends one event to events.ndjson (never throws). */
  append(event: SessionEvent): void;
  /** Writes the folder's files; returns null, or why it failed. */
  write(input: {
    bundle: Bundle;
    reportText: string;
    probeFiles: readonly BundleFile[];
    scrub: boolean;
  }): Promise<string | null>;
  /**
   * Writes the folder for a finished report (nothing without a folder); a failure becomes a
   * warning in the report and its bundle path null.
   */
  writeFor(
    report: SessionReport,
    warnings: string[],
    input: () => Parameters<RunBundle['write']>[0],
  ): Promise<void>;
  /**
   * Closes the event log (nothing is appended after this), then — unless --no-scrub — scrubs
   * every file this run wrote into the folder, the live-written events.ndjson included. Returns warnings about
   * files that could not be scrubbed (never throws).
   */
  close(scrub: boolean): Promise<string[]>;
}

/** Where the scrubber looks for this machine's identifiers (the run's --proc-root/--sys-root). */
export interface RunBundleRoots {
  procRoot: string;
  sysRoot: string;
}

/** Opens the bundle folder and its event log, or a writer that writes nothing (dir null). */
export function openRunBundle(dir: string | null, roots?: RunBundleRoots): RunBundle {
  let known: ScrubKnown | null = null;
  const scrubKnown = (): ScrubKnown => (known ??= gatherScrubKnown(process.env, roots ?? {}));
  const log: EventLogWriter | null = dir ? openBundleEventLog(dir) : null;
  // What this run wrote into the folder: the close-time scrub rewrites these and nothing else.
  const written = new Set<string>([BUNDLE_FILES.events]);
  const files = dir
    ? {
        bundle: join(dir, BUNDLE_FILES.bundle),
        events: join(dir, BUNDLE_FILES.events),
        kernelLog: join(dir, BUNDLE_FILES.kernelLog),
        report: join(dir, BUNDLE_FILES.report),
      }
    : { bundle: null, events: null, kernelLog: null, report: null };
  const bundle: RunBundle = {
    dir,
    logPath: log?.path ?? null,
    files,
    append: (e) => log?.append(e),
    async writeFor(report, warnings, input) {
      if (!dir) return;
      const failed = await bundle.write(input());
      if (failed === null) return;
      warnings.push(`could not write the bundle: ${failed}`);
      report.warnings = warnings;
      report.files.bundle = null;
    },
    async write({ bundle: doc, reportText, probeFiles, scrub }) {
      if (!dir) return null;
      try {
        const known = scrub ? scrubKnown() : null;
        const kernelLog = probeFiles.find((f) => f.name === BUNDLE_FILES.kernelLog)?.text ?? '';
        for (const name of [BUNDLE_FILES.bundle, BUNDLE_FILES.kernelLog, BUNDLE_FILES.report])
          written.add(name);
        await writeBundleFolder({ dir, bundle: doc, kernelLog, reportText, scrub: known });
        for (const f of probeFiles) {
          if (f.name === BUNDLE_FILES.kernelLog) continue;
          written.add(f.name);
          await writeFile(join(dir, f.name), known ? scrubText(f.text, known) : f.text);
        }
        return null;
      } catch (err) {
        return errorMessage(err);
      }
    },
    async close(scrub) {
      log?.close();
      if (!dir || !scrub) return [];
      const result = await scrubBundleFolder(dir, createScrubber(scrubKnown()), written);
      return folderScrubWarnings(dir, result);
    },
  };
  return bundle;
}

/** The bundle fields every run fills the same way (sessionToBundle's input). */
export function runBundleBasics(o: {
  host: BundleHost;
  machineId: () => string;
  toolVersion: string;
  events: readonly { frames: string[] }[];
  captureBackend: CaptureBackend;
}): {
  host: BundleHost;
  machineId: string;
  toolVersion: string;
  createdAt: string;
  frames: string[][];
  captureBackend: CaptureBackend;
  rulesVersion: string;
} {
  return {
    host: o.host,
    machineId: o.machineId(),
    toolVersion: o.toolVersion,
    createdAt: new Date().toISOString(),
    frames: o.events.map((e) => e.frames),
    captureBackend: o.captureBackend,
    rulesVersion: RULES_VERSION,
  };
}
