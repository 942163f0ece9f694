// Ingest of many bundle files with progress: the file list in chunks (between chunks the
// reporter draws), the chunk reports summed into one.
// A chunk is one ingest batch (one transaction), so a kill -9 still leaves whole batches.
import {
  INGEST_BATCH,
  ingestFiles,
  type IngestOptions,
  type IngestReport,
  type IngestTarget,
} from '../bundle/ingest.js';
import type { ProgressReporter } from './progress.js';

/** Adds one chunk's report into the running total. */
export function addIngestReport(total: IngestReport, r: IngestReport): void {
  total.files += r.files;
  total.added += r.added;
  total.duplicates += r.duplicates;
  total.unchanged += r.unchanged;
  total.skipped.push(...r.skipped);
}

/** ingestFiles with a progress reporter; exists so aggregate over a folder shows it moving. */
export async function ingestFilesWithProgress(
  store: IngestTarget,
  files: string[],
  options: IngestOptions,
  progress: ProgressReporter,
  chunk = options.batchSize ?? INGEST_BATCH,
): Promise<IngestReport> {
  const total: IngestReport = { files: 0, added: 0, duplicates: 0, unchanged: 0, skipped: [] };
  try {
    for (let i = 0; i < files.length; i += chunk) {
      if (options.signal?.aborted) break;
      addIngestReport(total, await ingestFiles(store, files.slice(i, i + chunk), options));
      progress.update(Math.min(files.length, i + chunk));
    }
  } finally {
    progress.finish();
  }
  return total;
}
