// Reads and writes one kernel setting file (/proc, /sys, tracefs) and turns the errno of a
// failure into a message a user can act on. Writes never create files: a missing setting is
// an answer ("the kernel lacks this"), not something to conjure in a tmpfs.
import * as nodeFs from 'node:fs';
import { closeSync, constants, openSync, readFileSync, rmdirSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { errnoCode, errorMessage, XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { fsTypeOf, isKernelMadeFs } from './kernel-fs.js';

/** How settings are read and written; tests and the journal receive this as a parameter. */
export interface SettingFileIo {
  read(path: string): string;
  write(path: string, value: string): void;
  /** Appends without truncating (tracefs `kprobe_events`: opening it with O_TRUNC deletes every probe). */
  append?(path: string, value: string): void;
  /** Removes an empty folder (a tracefs instance). */
  removeDir?(path: string): void;
  /**
   * Throws when `path` must not be written (a planted link on the way, `..`); called before a
   * setting's original is journaled, so a refused write leaves nothing to restore.
   */
  check?(path: string): void;
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

/** Pure: why a setting path must not be written as spelled (a `.` or `..` component), or null. */
export function judgeSettingPathText(path: string): string | null {
  const odd = path.split('/').find((c) => c === '..' || c === '.');
  return odd === undefined
    ? null
    : `it has a "${odd}" component (xrunhunt writes only paths it built from the tree's own names)`;
}

/** What the link walk needs from the file system (tests pass a wrapper). */
type WalkFs = Pick<typeof nodeFs, 'lstatSync' | 'readlinkSync' | 'statfsSync'>;

/**
 * Pure rule for one link met on the way to a setting: a link inside procfs/sysfs/tracefs was
 * made by the kernel (/sys/block/sda is one) and is followed; a link in any other file system
 * (a copied tree, a tmp folder) could have been planted and is refused. Returns why, or null.
 */
export function judgeLinkOnTheWay(
  link: string,
  target: string,
  dirFsType: number | undefined,
): string | null {
  if (isKernelMadeFs(dirFsType)) return null;
  return `${quoteUntrusted(link)} is a symbolic link (to ${quoteUntrusted(target)})`;
}

/** Pure: a plain file with more than one name is also a file elsewhere (a hard link); why, or null. */
export function judgeHardLinks(nlink: number): string | null {
  return nlink > 1
    ? `it has ${nlink} hard links (the same file is also somewhere outside the tree)`
    : null;
}

function refusedWrite(path: string, why: string, cause?: unknown): XrunhuntError {
  return new XrunhuntError(
    'permission',
    `refusing to write the setting ${quoteUntrusted(path)}: ${why}; expected the real file, reached with no link on the way`,
    {
      hint: 'a link in a copied tree would make root write a file outside it; replace the link with the real file or folder, or give --proc-root/--sys-root as the real tree (realpath DIR)',
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/**
 * Checks every component of a setting path before it is written: no `.`/`..`, and no link
 * except the kernel's own (see judgeLinkOnTheWay). A missing component is the usual not-found.
 */
export function assertSettingPathWritable(path: string, fs: WalkFs = nodeFs): void {
  const textWhy = judgeSettingPathText(path);
  if (textWhy !== null) throw refusedWrite(path, textWhy);
  const parts = resolve(path)
    .split('/')
    .filter((c) => c !== '');
  let prefix = '';
  for (const part of parts) {
    prefix = `${prefix}/${part}`;
    let st: nodeFs.Stats;
    try {
      st = fs.lstatSync(prefix);
    } catch (err) {
      throw settingFileError('write', path, err);
    }
    if (st.isFile() && st.nlink > 1 && !isKernelMadeFs(fsTypeOf(prefix, fs)))
      throw refusedWrite(path, judgeHardLinks(st.nlink)!);
    if (!st.isSymbolicLink()) continue;
    let target = '?';
    try {
      target = String(fs.readlinkSync(prefix));
    } catch {
      // the reason stays the link itself
    }
    const why = judgeLinkOnTheWay(prefix, target, fsTypeOf(dirname(prefix), fs));
    if (why !== null) throw refusedWrite(path, why);
  }
}

/**
 * Opens an existing setting file for writing, once, at its real path with O_NOFOLLOW, after
 * the component check; the kernel's own name for the opened file must be that real path (a
 * folder swapped for a link in between is caught before any byte is written). O_TRUNC is
 * applied after that check, and only to plain files (kernel files have no length to cut).
 */
export function openSettingForWrite(path: string, flags: number): number {
  assertSettingPathWritable(path);
  let real: string;
  try {
    real = nodeFs.realpathSync(resolve(path));
  } catch (err) {
    throw settingFileError('write', path, err);
  }
  const truncate = (flags & constants.O_TRUNC) !== 0;
  let fd: number;
  try {
    fd = openSync(real, (flags & ~constants.O_TRUNC) | constants.O_NOFOLLOW);
  } catch (err) {
    if (errnoCode(err) === 'ELOOP')
      throw refusedWrite(path, `${quoteUntrusted(real)} became a symbolic link`, err);
    throw settingFileError('write', path, err);
  }
  try {
    let opened = '';
    try {
      opened = nodeFs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      opened = '';
    }
    if (opened !== real)
      throw refusedWrite(
        path,
        `it changed while it was opened (the kernel names the opened file ${quoteUntrusted(opened || '?')}, not ${quoteUntrusted(real)})`,
      );
    const st = nodeFs.fstatSync(fd);
    const plain = st.isFile() && !isKernelMadeFs(fsTypeOf(`/proc/self/fd/${fd}`));
    if (plain && judgeHardLinks(st.nlink) !== null)
      throw refusedWrite(path, judgeHardLinks(st.nlink)!);
    if (truncate && plain) nodeFs.ftruncateSync(fd, 0);
    return fd;
  } catch (err) {
    closeSync(fd);
    if (err instanceof XrunhuntError) throw err;
    throw settingFileError('write', path, err);
  }
}

/** Writes `value` in one call to an existing file opened with `flags` (never creates it). */
function writeOnce(path: string, value: string, flags: number): void {
  const fd = openSettingForWrite(path, flags);
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
  check: (path) => assertSettingPathWritable(path),
  removeDir(path) {
    assertSettingPathWritable(path);
    try {
      rmdirSync(path);
    } catch (err) {
      throw settingFileError('write', path, err);
    }
  },
};
