// The IO shell of the HTML reports: render, then write the file atomically (a report is
// never left half-written), with errors that say which file and what to do. The target can
// be checked before the work that fills it (a long analysis), so a bad --html path costs
// nothing and is named precisely.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { kernelPseudoFsName } from '../analysis/kernel-pseudo-fs.js';
import { writeFileAtomic } from '../bundle/write.js';
import { XrunhuntError, errnoCode } from '../errors.js';
import { describeInputKind, inspectInputPath } from '../io/input-path.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import type { ReportView } from './report-view.js';
import { renderReportHtml } from './render-report.js';

const HINT = 'pass --html with a writable file path, e.g. --html ./report.html';

function refuse(path: string, why: string): never {
  throw new XrunhuntError(
    'resource',
    `cannot write the HTML report to ${quoteUntrusted(path)}: ${why}`,
    {
      hint: HINT,
    },
  );
}

/**
 * Says why a report cannot be written to `path` before any work is done: a target that is
 * not a regular file, a folder that does not exist or is not a folder, a kernel pseudo file
 * system (/proc, /sys), a read-only or unwritable folder. Returns quietly when it can be.
 */
export function checkReportTarget(path: string): void {
  const abs = resolve(path);
  const dir = dirname(abs);
  if (existsSync(abs)) {
    const facts = inspectInputPath(abs);
    if (facts.kind !== 'file') refuse(path, `it is ${describeInputKind(facts.kind)}`);
  }
  let dirStat;
  try {
    dirStat = statSync(dir);
  } catch (err) {
    const code = errnoCode(err);
    refuse(
      path,
      code === 'ENOENT'
        ? `its folder ${quoteUntrusted(dir)} does not exist`
        : code === 'ENOTDIR'
          ? `${quoteUntrusted(dir)} is not a folder`
          : `its folder cannot be examined (${code ?? String(err)})`,
    );
  }
  if (!dirStat.isDirectory()) refuse(path, `${quoteUntrusted(dir)} is not a folder`);
  const fsName = kernelPseudoFsName(dir);
  if (fsName !== undefined) {
    refuse(
      path,
      `${quoteUntrusted(dir)} is on the kernel's ${fsName} file system, where no file can be created`,
    );
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const code = errnoCode(err);
    refuse(
      path,
      code === 'EROFS'
        ? `its folder ${quoteUntrusted(dir)} is on a read-only file system`
        : `no permission to create files in ${quoteUntrusted(dir)}`,
    );
  }
}

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
        ? existsSync(dirname(resolve(path)))
          ? 'no file can be created in its folder'
          : 'its folder does not exist'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder'
            : code === 'ENOSPC'
              ? 'the disk is full'
              : code === 'EROFS'
                ? 'the file system is read-only'
                : (err as Error).message;
    throw new XrunhuntError(
      'resource',
      `cannot write the HTML report to ${quoteUntrusted(path)}: ${why}`,
      {
        hint: HINT,
        cause: err,
      },
    );
  }
  return bytes.length;
}
