// Reads and writes one kernel setting file (/proc, /sys, tracefs) and turns the errno of a
// failure into a message a user can act on. Writes never create files: a missing setting is
// an answer ("the kernel lacks this"), not something to conjure in a tmpfs.
import { closeSync, constants, openSync, readFileSync, rmdirSync, writeSync } from 'node:fs';
import { errnoCode, errorMessage, XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

/** How settings are read and written; tests and the journal receive this as a parameter. */
export interface SettingFileIo {
  read(path: string): string;
  write(path: string, value: string): void;
  /** Appends without truncating (tracefs `kprobe_events`: opening it with O_TRUNC deletes every probe). */
  append?(path: string, value: string): void;
  /** Removes an empty folder (a tracefs instance). */
  removeDir?(path: string): void;
}

/**
 * Maps a failed read/write of a kernel setting to a user-facing error. `euid` matters: root
 * refused (EPERM/EACCES) is not a missing sudo but an immutable file (chattr +i), a security
 * module or lockdown, and is said so.
 */
export function settingFileError(
  op: 'read' | 'write',
  path: string,
  err: unknown,
  euid: number = process.geteuid?.() ?? 0,
): XrunhuntError {
  const code = errnoCode(err);
  const shown = quoteUntrusted(path);
  if ((code === 'EACCES' || code === 'EPERM') && euid === 0) {
    return new XrunhuntError(
      'permission',
      `cannot ${op} ${shown}: ${code === 'EPERM' ? 'operation not permitted' : 'permission denied'} (${code}), although xrunhunt runs as root`,
      {
        hint:
          code === 'EPERM'
            ? 'the file is immutable or append-only (lsattr shows i or a: chattr -i -a it), or the kernel refuses the change (lockdown, a security module such as SELinux/AppArmor; see dmesg)'
            : 'a security module (SELinux/AppArmor) or the mount denies it; see dmesg and the audit log',
        cause: err,
      },
    );
  }
  switch (code ?? '') {
    case 'EACCES':
    case 'EPERM':
      return new XrunhuntError('permission', `cannot ${op} ${shown}: permission denied`, {
        hint:
          op === 'write'
            ? 'changing kernel settings needs root: run it with sudo (or as root)'
            : 'run it as root (sudo) to read this file',
        cause: err,
      });
    case 'ENOENT':
      return new XrunhuntError('not-found', `cannot ${op} ${shown}: it does not exist`, {
        hint: 'the device or kernel option behind it is gone; run "xrunhunt doctor"',
        cause: err,
      });
    case 'EISDIR':
      return new XrunhuntError(
        'input',
        `cannot ${op} ${shown}: it is a directory, expected a file`,
        {
          cause: err,
        },
      );
    case 'EBUSY':
      return new XrunhuntError('resource', `cannot ${op} ${shown}: it is busy (still in use)`, {
        hint: 'something still uses it (an enabled trace event, an open trace_pipe); retry when it is done',
        cause: err,
      });
    case 'EROFS':
      return new XrunhuntError(
        'permission',
        `cannot ${op} ${shown}: read-only file system (EROFS)`,
        {
          hint: 'the file system holding it is mounted read-only (a copied tree on read-only media, a container with a read-only /proc or /sys); remount it read-write or use a writable copy',
          cause: err,
        },
      );
    default:
      return new XrunhuntError('resource', `cannot ${op} ${shown}: ${errorMessage(err)}`, {
        cause: err,
      });
  }
}

/** Writes `value` in one call to an existing file opened with `flags` (never creates it). */
function writeOnce(path: string, value: string, flags: number): void {
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (err) {
    throw settingFileError('write', path, err);
  }
  try {
    writeSync(fd, value);
  } catch (err) {
    throw settingFileError('write', path, err);
  } finally {
    closeSync(fd);
  }
}

/** The real file system: read whole file; write in one call without creating the file. */
export const realSettingFileIo: SettingFileIo = {
  read(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      throw settingFileError('read', path, err);
    }
  },
  // O_TRUNC matters only for plain files (fake trees); procfs ignores it. No O_CREAT.
  write: (path, value) => writeOnce(path, value, constants.O_WRONLY | constants.O_TRUNC),
  // Appending is how tracefs adds/removes probes (`>` would truncate every probe).
  append: (path, value) => writeOnce(path, value, constants.O_WRONLY | constants.O_APPEND),
  removeDir(path) {
    try {
      rmdirSync(path);
    } catch (err) {
      throw settingFileError('write', path, err);
    }
  },
};
