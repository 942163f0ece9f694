// The IO shell of the HTML reports: render, then write the file atomically (a report is
// never left half-written), with errors that say which file and what to do.
import { writeFileAtomic } from '../bundle/write.js';
import { XrunhuntError, errnoCode } from '../errors.js';
import type { ReportView } from './report-view.js';
import { renderReportHtml } from './render-report.js';

/** Renders `view` and writes it to `path`; returns the number of bytes written. */
export async function writeHtmlReport(
  path: string,
  view: ReportView,
  toolVersion: string,
  write: (path: string, bytes: Uint8Array) => Promise<void> = writeFileAtomic,
): Promise<number> {
  const bytes = Buffer.from(renderReportHtml(view, toolVersion), 'utf8');
  try {
    await write(path, bytes);
  } catch (err) {
    const code = errnoCode(err);
    const why =
      code === 'ENOENT'
        ? 'its folder does not exist'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder'
            : code === 'ENOSPC'
              ? 'the disk is full'
              : (err as Error).message;
    throw new XrunhuntError('resource', `cannot write the HTML report to ${path}: ${why}`, {
      hint: 'pass --html with a writable file path, e.g. --html ./report.html',
      cause: err,
    });
  }
  return bytes.length;
}
