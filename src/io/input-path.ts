// What a path named on the command line (or found in an inbox) really is, found out before a
// single byte is read: a regular file has a size to check against a limit; a FIFO can block
// an open() forever; a character device such as /dev/zero never ends; a directory or socket
// is not an input at all. stat() follows symlinks, so a link to /dev/zero is a device here.
import * as nodeFs from 'node:fs';
import { XrunhuntError, errnoCode } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

export type InputKind =
  'file' | 'directory' | 'fifo' | 'char-device' | 'block-device' | 'socket' | 'other';

export interface InputPathFacts {
  path: string;
  kind: InputKind;
  /** Bytes, for regular files (and block devices, where the kernel says); null otherwise. */
  sizeBytes: number | null;
}

/** Words for a kind in messages ("a character device"). */
export function describeInputKind(kind: InputKind): string {
  switch (kind) {
    case 'file':
      return 'a regular file';
    case 'directory':
      return 'a folder';
    case 'fifo':
      return 'a named pipe (FIFO)';
    case 'char-device':
      return 'a character device';
    case 'block-device':
      return 'a block device';
    case 'socket':
      return 'a socket';
    case 'other':
      return 'a special file';
  }
}

/** What kind of file stat() (or fstat() of an open file) found. */
export function inputKindOfStats(st: nodeFs.Stats): InputKind {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isFIFO()) return 'fifo';
  if (st.isCharacterDevice()) return 'char-device';
  if (st.isBlockDevice()) return 'block-device';
  if (st.isSocket()) return 'socket';
  return 'other';
}

/**
 * Stats an input path (following links) and says what it is, so callers can refuse devices,
 * pipes and oversized files before opening them. Missing and unreadable paths become
 * user errors naming the path, never a stack trace.
 */
export function inspectInputPath(
  path: string,
  fs: Pick<typeof nodeFs, 'statSync'> = nodeFs,
): InputPathFacts {
  let st: nodeFs.Stats;
  try {
    st = fs.statSync(path);
  } catch (err) {
    const code = errnoCode(err);
    const shown = quoteUntrusted(path);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new XrunhuntError('not-found', `${shown}: no such file or folder`, {
        hint: 'check the path (a relative path is taken from the current folder)',
      });
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new XrunhuntError('permission', `${shown}: permission denied`, {
        hint: 'make the file readable for this user, or run as its owner',
      });
    }
    if (code === 'ELOOP') {
      throw new XrunhuntError('input', `${shown}: too many levels of symbolic links`);
    }
    throw new XrunhuntError('input', `${shown}: cannot be examined (${code ?? String(err)})`);
  }
  const kind = inputKindOfStats(st);
  return { path, kind, sizeBytes: kind === 'file' ? st.size : null };
}

/**
 * Refuses anything that is not a regular file of at most `maxBytes`, with a message that
 * says what was expected, what was found and what to do.
 */
export function requireRegularFileWithin(
  facts: InputPathFacts,
  maxBytes: number,
  what: string,
): void {
  const shown = quoteUntrusted(facts.path);
  if (facts.kind !== 'file') {
    throw new XrunhuntError(
      'input',
      `${shown}: expected ${what} (a regular file), found ${describeInputKind(facts.kind)}`,
      {
        hint:
          facts.kind === 'directory'
            ? 'name the files inside it'
            : 'copy the data into a regular file first',
      },
    );
  }
  if (facts.sizeBytes !== null && facts.sizeBytes > maxBytes) {
    throw new XrunhuntError(
      'input',
      `${shown}: ${facts.sizeBytes} bytes is larger than the ${maxBytes}-byte limit for ${what}`,
    );
  }
}
