// A crash-safe journal of kernel settings xrunhunt changed. Before the first write to any
// setting file, its original value goes into a small JSON file (write to a temporary name,
// fsync, rename, fsync the directory), so the original survives a crash, a `kill -9` or a
// power cut, and the next run or `xrunhunt debug restore` can put it back. Generic on purpose:
// any path, any string value, and a `kind` per entry so other owners (tracefs, kprobes) can
// restore their own entries with their own writer. Model: rtla's osnoise_context
// save/set/restore, made durable.
import * as nodeFs from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { errorMessage, XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import type { SettingRoots } from './journal-trust.js';
import {
  assertRestorableChange,
  judgeOwnership,
  lstatFacts,
  runningUid,
  statsFacts,
} from './journal-trust.js';
import { SCHED_JOURNAL_KIND, schedRestorer } from './journal-sched.js';
import type { SettingFileIo } from './setting-file.js';
import { realSettingFileIo } from './setting-file.js';

export const JOURNAL_FORMAT = 'xrunhunt-settings-journal';
export const JOURNAL_VERSION = 1;

/** One setting's original value, recorded before xrunhunt first changed it. */
export interface JournalEntry {
  path: string;
  /** Exactly what restore writes back. */
  original: string;
  /** Who owns the entry and how it is restored: 'value' (write original back) unless the owner says otherwise. */
  kind: string;
  recordedAt: string;
}

/** The process that made the changes. */
export interface JournalOwner {
  pid: number;
  /** Start time from /proc/<pid>/stat (clock ticks since boot): tells a live owner from a reused pid. */
  startTicks: number | undefined;
  startedAt: string;
  toolVersion: string;
  /** The command line that changed the settings, for messages (`debug on`, `session`). */
  command: string;
  /**
   * true: the owner restores on exit (a session); a journal whose owner is dead was left by a
   * killed run. false: the change is meant to stay (`debug on`) until `debug restore`.
   */
  temporary: boolean;
}

export interface JournalDocument {
  format: typeof JOURNAL_FORMAT;
  version: typeof JOURNAL_VERSION;
  owner: JournalOwner;
  entries: JournalEntry[];
}

/** The part of node:fs the journal uses; tests pass a recording wrapper. */
export type JournalFs = Pick<
  typeof nodeFs,
  | 'mkdirSync'
  | 'openSync'
  | 'writeSync'
  | 'fsyncSync'
  | 'closeSync'
  | 'renameSync'
  | 'readFileSync'
  | 'unlinkSync'
  | 'readdirSync'
  | 'lstatSync'
  | 'fstatSync'
>;

/** Result of putting journaled values back. Failures are listed, never thrown. */
export interface RestoreReport {
  restored: { path: string; value: string }[];
  /** Entries whose file no longer exists (device unplugged, module unloaded): dropped. */
  gone: string[];
  failed: { path: string; value: string; error: string }[];
}

/** Restores one entry of a given kind; the default kind 'value' writes `original` back. */
export type EntryRestorer = (entry: JournalEntry, io: SettingFileIo) => void;

/**
 * Restorers every journal knows, so any reader (a later session, `debug restore`) undoes them
 * right: 'append' writes `original` (a command such as `-:xrunhunt/xrun`) without truncating the
 * file (tracefs `kprobe_events` deletes EVERY probe when opened with O_TRUNC); 'rmdir' removes
 * a folder xrunhunt created (a tracefs instance); 'sched' puts an IRQ thread's policy back. Entries restore newest first, so the order of
 * recording is the reverse of the teardown order.
 */
export const BUILTIN_RESTORERS: Record<string, EntryRestorer> = {
  append(entry, io) {
    if (!io.append) throw new Error(`no append writer to restore ${entry.path}`);
    io.append(entry.path, entry.original);
  },
  rmdir(entry, io) {
    if (!io.removeDir) throw new Error(`no folder remover to restore ${entry.path}`);
    io.removeDir(entry.path);
  },
  // A thread's scheduling policy (journal-sched.ts): only back onto the same irq/N-… thread.
  [SCHED_JOURNAL_KIND]: schedRestorer(),
};

/**
 * The owner of a state folder as root may trust it: lstat of the folder itself (a link is not
 * followed), and 0 only for a root-owned folder nobody else can write; undefined otherwise.
 */
function ownerUid(path: string): number | undefined {
  try {
    const facts = lstatFacts(path);
    if (facts.uid === 0 && judgeOwnership(facts, 'directory', 0) !== null) return undefined;
    return facts.uid;
  } catch {
    return undefined;
  }
}

/**
 * Picks the journal folder: $XDG_STATE_HOME/xrunhunt, /var/lib/xrunhunt (root),
 * ~/.local/state/xrunhunt. For root, $XDG_STATE_HOME counts only when root owns it: `sudo -E`
 * keeps a user's environment, and a folder the user controls must not feed root's restores.
 */
export function defaultJournalDir(
  env: NodeJS.ProcessEnv,
  uid: number,
  home: string,
  ownerOf: (path: string) => number | undefined = ownerUid,
): string {
  const xdg = env['XDG_STATE_HOME'];
  if (xdg !== undefined && xdg !== '' && (uid !== 0 || ownerOf(xdg) === 0))
    return join(xdg, 'xrunhunt');
  if (uid === 0) return '/var/lib/xrunhunt';
  return join(home, '.local', 'state', 'xrunhunt');
}

/** Validates a parsed journal document; returns an error message for anything else. */
export function validateJournal(value: unknown): JournalDocument | string {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  if (v['format'] !== JOURNAL_FORMAT) return `expected format "${JOURNAL_FORMAT}"`;
  if (v['version'] !== JOURNAL_VERSION)
    return `journal version ${quoteUntrusted(String(v['version']), 20)} is not supported (this xrunhunt reads version ${JOURNAL_VERSION})`;
  const owner = v['owner'] as Record<string, unknown> | undefined;
  if (typeof owner !== 'object' || owner === null || typeof owner['pid'] !== 'number')
    return 'missing owner.pid';
  if (!Array.isArray(v['entries'])) return 'missing entries';
  for (const e of v['entries'] as unknown[]) {
    const entry = e as Record<string, unknown>;
    if (typeof entry?.['path'] !== 'string' || typeof entry['original'] !== 'string')
      return 'an entry lacks path/original strings';
  }
  return value as JournalDocument;
}

/** Writes bytes durably: temp file, fsync, rename over the target, fsync the folder. */
export function writeFileDurably(fs: JournalFs, file: string, data: string): void {
  const dir = dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  const dfd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(dfd);
  } finally {
    fs.closeSync(dfd);
  }
}

/** The refusal of an untrusted journal file or folder (`why` says what was found). */
function refusedJournal(file: string, why: string): XrunhuntError {
  return new XrunhuntError(
    'permission',
    `refusing the settings journal ${quoteUntrusted(file)}: ${why}`,
    {
      hint: `xrunhunt only acts on journals owned by the running user and writable by nobody else; remove ${quoteUntrusted(file)} if you did not create it, or fix its owner and mode if you did`,
    },
  );
}

/**
 * Opens `path` once with O_NOFOLLOW (a folder with O_DIRECTORY; a file with O_NONBLOCK, so a
 * planted FIFO cannot hang the open) and judges the opened descriptor's fstat, so the entity
 * checked is the one read. Returns the descriptor, undefined when absent; throws why not.
 */
export function openTrusted(
  path: string,
  expected: 'file' | 'directory',
  uid: number,
  fs: Pick<JournalFs, 'openSync' | 'fstatSync' | 'closeSync' | 'lstatSync'>,
): number | undefined {
  const c = nodeFs.constants;
  let fd: number;
  try {
    fd = fs.openSync(
      path,
      c.O_RDONLY |
        c.O_NOFOLLOW |
        (expected === 'directory' ? c.O_DIRECTORY : c.O_NONBLOCK | c.O_NOCTTY),
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      let why = judgeOwnership({ kind: 'symlink', uid: -1, mode: 0, size: 0 }, expected, uid);
      try {
        why = judgeOwnership(lstatFacts(path, fs), expected, uid) ?? why;
      } catch {
        // the link (or what is in its place) is the reason
      }
      throw Object.assign(new Error(why ?? 'it is not what xrunhunt writes'), { untrusted: true });
    }
    throw err;
  }
  try {
    const why = judgeOwnership(statsFacts(fs.fstatSync(fd)), expected, uid);
    if (why !== null) throw Object.assign(new Error(why), { untrusted: true });
    return fd;
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The path that opens `name` inside the folder open at `dirFd` (openat(2) through procfs). */
export function atFolder(dirFd: number, name: string): string {
  return `/proc/self/fd/${dirFd}/${name}`;
}

/**
 * Reads a journal file; undefined when there is none, an XrunhuntError when it is corrupt or
 * not trustworthy (not owned by the running user, writable by others, a symlink, oversized).
 * One lookup each: the folder is opened and judged by its descriptor, the file opened from
 * that descriptor, judged by fstat and read from the same descriptor (issue 30).
 */
export function readJournalFile(
  file: string,
  fs: JournalFs = nodeFs,
  uid: number = runningUid(),
): JournalDocument | undefined {
  let text: string;
  try {
    let dirFd: number | undefined;
    try {
      dirFd = openTrusted(dirname(file), 'directory', uid, fs);
    } catch (err) {
      if ((err as { untrusted?: boolean }).untrusted)
        throw refusedJournal(
          file,
          `its folder ${quoteUntrusted(dirname(file))}: ${(err as Error).message}`,
        );
      throw err;
    }
    if (dirFd === undefined) return undefined;
    try {
      let fd: number | undefined;
      try {
        fd = openTrusted(atFolder(dirFd, basename(file)), 'file', uid, fs);
      } catch (err) {
        if ((err as { untrusted?: boolean }).untrusted)
          throw refusedJournal(file, (err as Error).message);
        throw err;
      }
      if (fd === undefined) return undefined;
      try {
        text = fs.readFileSync(fd, 'utf8') as string;
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.closeSync(dirFd);
    }
  } catch (err) {
    if (err instanceof XrunhuntError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new XrunhuntError(
      'resource',
      `cannot read the settings journal ${quoteUntrusted(file)}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const doc = validateJournal(parsed);
  if (typeof doc === 'string') {
    throw new XrunhuntError(
      'format',
      `the settings journal ${quoteUntrusted(file)} is unreadable: ${doc}`,
      {
        hint: `inspect it by hand (it lists original values of kernel settings), put them back, then delete it; until then xrunhunt changes no setting (it cannot tell which ones it names)`,
      },
    );
  }
  return doc;
}

/** What a journal is given: its file system, the setting writer, and the roots it changes. */
export interface JournalDeps {
  fs?: JournalFs;
  io?: SettingFileIo;
  /**
   * The trees its settings lie in: when given, every original is checked with the restore-side
   * rule (journal-trust.ts) before it is recorded, so nothing is changed that restore refuses.
   */
  roots?: SettingRoots;
}

/**
 * One journal file and the settings it guards. `set()` is the only way to change a setting:
 * it journals the original (durably) before the first write to that path.
 */
export class SettingsJournal {
  readonly file: string;
  private doc: JournalDocument;
  private readonly fs: JournalFs;
  private readonly io: SettingFileIo;
  private readonly roots: SettingRoots | undefined;

  private constructor(
    file: string,
    doc: JournalDocument,
    fs: JournalFs,
    io: SettingFileIo,
    roots?: SettingRoots,
  ) {
    this.file = file;
    this.doc = doc;
    this.fs = fs;
    this.io = io;
    this.roots = roots;
  }

  /** Opens (or continues) the journal at `file`; nothing is written until the first change. */
  static open(file: string, owner: JournalOwner, deps: JournalDeps = {}): SettingsJournal {
    const fs = deps.fs ?? nodeFs;
    const existing = readJournalFile(file, fs);
    const doc: JournalDocument = existing
      ? { ...existing, owner }
      : { format: JOURNAL_FORMAT, version: JOURNAL_VERSION, owner, entries: [] };
    return new SettingsJournal(file, doc, fs, deps.io ?? realSettingFileIo, deps.roots);
  }

  /** Wraps a document already read (and trust-checked) by readJournalFile. */
  static fromDocument(file: string, doc: JournalDocument, deps: JournalDeps = {}): SettingsJournal {
    return new SettingsJournal(
      file,
      doc,
      deps.fs ?? nodeFs,
      deps.io ?? realSettingFileIo,
      deps.roots,
    );
  }

  /** Loads an existing journal (e.g. one left by a killed run); undefined when absent. */
  static load(file: string, deps: JournalDeps = {}): SettingsJournal | undefined {
    const fs = deps.fs ?? nodeFs;
    const doc = readJournalFile(file, fs);
    return doc
      ? new SettingsJournal(file, doc, fs, deps.io ?? realSettingFileIo, deps.roots)
      : undefined;
  }

  get owner(): JournalOwner {
    return this.doc.owner;
  }

  get entries(): readonly JournalEntry[] {
    return this.doc.entries;
  }

  has(path: string): boolean {
    const absolute = resolve(path);
    return this.doc.entries.some((e) => e.path === absolute);
  }

  /**
   * Records an original value durably (first original wins: a later call for the same path is
   * a no-op). The path is stored absolute: a later restore may run from another folder.
   */
  record(path: string, original: string, kind = 'value'): void {
    if (this.has(path)) return;
    path = resolve(path);
    // The write's own checks first; a path not there yet (a tracefs instance xrunhunt is about
    // to create) has nothing to write through, and its write fails on its own.
    try {
      this.io.check?.(path);
    } catch (err) {
      if (!(err instanceof XrunhuntError && err.code === 'not-found')) throw err;
    }
    if (this.roots) assertRestorableChange({ path, original, kind }, this.roots);
    const next: JournalDocument = {
      ...this.doc,
      entries: [
        ...this.doc.entries,
        { path, original, kind, recordedAt: new Date().toISOString() },
      ],
    };
    writeFileDurably(this.fs, this.file, JSON.stringify(next, null, 2) + '\n');
    this.doc = next;
  }

  /**
   * Changes a setting: reads and journals its original first (unless already journaled), then
   * writes `value`. `normalize` turns the file's text into the value to write back (e.g. trim).
   */
  set(
    path: string,
    value: string,
    options: { kind?: string; normalize?: (text: string) => string } = {},
  ): void {
    if (!this.has(path)) {
      const text = this.io.read(path);
      this.record(
        path,
        options.normalize ? options.normalize(text) : text,
        options.kind ?? 'value',
      );
    }
    this.io.write(path, value);
  }

  /**
   * Writes every journaled value back (newest first, so layered changes unwind in reverse) and
   * clears the journal. Entries that fail stay in the journal for a later retry; entries whose
   * file vanished are dropped. Never throws for a setting that fails.
   */
  restore(
    restorers: Record<string, EntryRestorer> = {},
    pathFor: (entry: JournalEntry) => string = (entry) => entry.path,
  ): RestoreReport {
    const report: RestoreReport = { restored: [], gone: [], failed: [] };
    const keep: JournalEntry[] = [];
    for (const entry of [...this.doc.entries].reverse()) {
      const restorer =
        restorers[entry.kind] ??
        BUILTIN_RESTORERS[entry.kind] ??
        ((e: JournalEntry, io: SettingFileIo) => io.write(e.path, e.original));
      try {
        const target = pathFor(entry);
        restorer(target === entry.path ? entry : { ...entry, path: target }, this.io);
        report.restored.push({ path: entry.path, value: entry.original });
      } catch (err) {
        const code = err instanceof XrunhuntError ? err.code : undefined;
        if (code === 'not-found') report.gone.push(entry.path);
        else {
          report.failed.push({
            path: entry.path,
            value: entry.original,
            error: errorMessage(err),
          });
          keep.unshift(entry);
        }
      }
    }
    try {
      if (keep.length === 0) this.discard();
      else {
        const next = { ...this.doc, entries: keep };
        writeFileDurably(this.fs, this.file, JSON.stringify(next, null, 2) + '\n');
        this.doc = next;
      }
    } catch (err) {
      report.failed.push({
        path: this.file,
        value: '',
        error: `cannot update the journal: ${(err as Error).message}`,
      });
    }
    return report;
  }

  /** Drops entries whose change was undone by the caller (e.g. a failed all-or-nothing change). */
  forget(paths: string[]): void {
    const drop = paths.map((p) => resolve(p));
    const keep = this.doc.entries.filter((e) => !drop.includes(e.path));
    if (keep.length === this.doc.entries.length) return;
    if (keep.length === 0) {
      this.discard();
      return;
    }
    const next = { ...this.doc, entries: keep };
    writeFileDurably(this.fs, this.file, JSON.stringify(next, null, 2) + '\n');
    this.doc = next;
  }

  /** Deletes the journal file (after a full restore, or when nothing was ever changed). */
  discard(): void {
    try {
      this.fs.unlinkSync(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.doc = { ...this.doc, entries: [] };
  }
}

/** Reads a process's start time (field 22 of /proc/<pid>/stat); undefined when it is gone. */
export function readProcessStartTicks(
  pid: number,
  readFile: (p: string) => string = (p) => nodeFs.readFileSync(p, 'utf8'),
): number | undefined {
  let stat: string;
  try {
    stat = readFile(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // The comm field may contain spaces and parentheses: fields resume after the LAST ')'.
  const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(after[19]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

/** Whether the journal's owner is still running (same pid AND same start time). */
export function isOwnerAlive(
  owner: JournalOwner,
  startTicksOf: (pid: number) => number | undefined = readProcessStartTicks,
): boolean {
  const ticks = startTicksOf(owner.pid);
  if (ticks === undefined) return false;
  return owner.startTicks === undefined || owner.startTicks === ticks;
}
