// Writing the --junit file: its folder is checked before the run starts (an hour of stress
// must not end in "no such directory"), the file written at the end.
import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { errorMessage, UsageError, XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

/** Resolves `--junit FILE` and checks its folder exists (before anything runs). */
export function junitPath(cwd: string, file: string | undefined): string | null {
  if (file === undefined) return null;
  if (file.trim() === '')
    throw new UsageError('invalid --junit "": expected a file name, e.g. junit.xml');
  const path = resolve(cwd, file);
  let isDir = false;
  try {
    isDir = statSync(dirname(path)).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir)
    throw new UsageError(
      `invalid --junit "${quoteUntrusted(file)}": the folder "${quoteUntrusted(dirname(path))}" does not exist; create it or name a file in an existing folder`,
    );
  return path;
}

/** Writes the JUnit XML (a failure is an error naming the file, after the report was printed). */
export function writeJunitFile(path: string, xml: string): void {
  try {
    writeFileSync(path, xml);
  } catch (err) {
    throw new XrunhuntError(
      'resource',
      `could not write the JUnit file ${quoteUntrusted(path)}: ${errorMessage(err)}`,
      { hint: 'the report above is complete; choose a writable path with --junit FILE' },
    );
  }
}
