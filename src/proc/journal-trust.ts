// Whether a journal read from disk may be acted on. A journal says "write ORIGINAL to PATH";
// run as root, that is an arbitrary file write for whoever can plant one. So before anything
// is restored: the journal file and its folder must belong to the running user and be writable
// by nobody else (lstat: a symlinked journal is refused), and every entry must name a setting
// xrunhunt itself changes — an `xrun_debug` file under the proc root, or one of the few tracefs
// files of the kprobe capture — with a value of the shape xrunhunt journals for it. Paths are
// resolved (realpath) first, so a symlink cannot escape the root; restore writes the resolved path.
import * as nodeFs from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { XrunhuntError } from '../errors.js';
import { KPROBE_EVENT, KPROBE_GROUP, TRACE_INSTANCE } from '../kernel/tracefs.js';
import { RECORDER_EVENT, RECORDER_GROUP, RECORDER_INSTANCE } from '../kernel/recorder-setup.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import type { JournalEntry } from './journal.js';

/** Where the settings xrunhunt changes live: the real /proc and /sys, or fake trees (tests, copies). */
export interface SettingRoots {
  procRoot: string;
  sysRoot: string;
}

/** The roots of the running system. */
export const SYSTEM_SETTING_ROOTS: SettingRoots = { procRoot: '/proc', sysRoot: '/sys' };

/** A journal is a handful of entries; anything bigger was not written by xrunhunt. */
export const JOURNAL_MAX_BYTES = 1024 * 1024;

/** The longest `original` any xrunhunt setting has (xrun_debug masks, tracefs commands). */
const ORIGINAL_MAX_CHARS = 64;

/** What lstat says about a journal file or folder, reduced to what the trust rule needs. */
export interface OwnershipFacts {
  kind: 'file' | 'directory' | 'symlink' | 'other';
  uid: number;
  mode: number;
  size: number;
}

/** Reduces a Stats (from lstat, or fstat of an opened descriptor) to OwnershipFacts. */
export function statsFacts(st: nodeFs.Stats): OwnershipFacts {
  const kind = st.isSymbolicLink()
    ? 'symlink'
    : st.isFile()
      ? 'file'
      : st.isDirectory()
        ? 'directory'
        : 'other';
  return { kind, uid: st.uid, mode: st.mode, size: st.size };
}

/** Reads OwnershipFacts with lstat (never follows a symlink). */
export function lstatFacts(
  path: string,
  fs: Pick<typeof nodeFs, 'lstatSync'> = nodeFs,
): OwnershipFacts {
  return statsFacts(fs.lstatSync(path));
}

/**
 * Pure rule for a journal file or its folder: the expected kind, owned by `uid`, not writable by
 * group or others (a file too big to be a journal is refused too). Returns why not, or null.
 */
export function judgeOwnership(
  facts: OwnershipFacts,
  expected: 'file' | 'directory',
  uid: number,
): string | null {
  if (facts.kind === 'symlink') return 'it is a symbolic link (xrunhunt never writes one)';
  if (facts.kind !== expected)
    return `it is not a ${expected === 'file' ? 'regular file' : 'folder'}`;
  if (facts.uid !== uid)
    return `it is owned by uid ${facts.uid}, not by the running user (uid ${uid})`;
  if ((facts.mode & 0o022) !== 0)
    return `it is writable by ${(facts.mode & 0o002) !== 0 ? 'every user' : 'its group'} (mode ${(facts.mode & 0o7777).toString(8).padStart(4, '0')})`;
  if (expected === 'file' && facts.size > JOURNAL_MAX_BYTES)
    return `it is ${facts.size} bytes, larger than any journal xrunhunt writes (${JOURNAL_MAX_BYTES})`;
  return null;
}

/** One setting xrunhunt may journal: where it lives relative to a root, its kind, its original. */
interface SettingShape {
  root: 'proc' | 'sys' | 'tracefs';
  relative: RegExp;
  kind: string;
  original: (value: string) => boolean;
  what: string;
}

const isWhole = (v: string): boolean => /^\d{1,20}$/.test(v);
const isName = (v: string): boolean => /^[a-z][a-z0-9_-]{0,31}$/.test(v);
const isCpuList = (v: string): boolean => /^\d+(-\d+)?(,\d+(-\d+)?){0,200}$/.test(v);
const isMask = (v: string): boolean => /^\d{1,10}$/.test(v) && Number(v) <= 0xffff_ffff;
/** A 'sched' original: policy 0–6, priority, start ticks, and a comm that names an IRQ thread. */
const IRQ_SCHED_ORIGINAL = /^[0-6]:\d{1,2}:\d{1,20}:irq\/\d+-.{0,12}$/;
const kprobeEventDir = `instances/${TRACE_INSTANCE}/events/${KPROBE_GROUP}/${KPROBE_EVENT}`;
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A file of one event in the recorder's instance (the systems it enables, nothing else). */
const recorderEventFile = (file: string): RegExp =>
  new RegExp(
    `^instances/${escapeRe(RECORDER_INSTANCE)}/events/(sched|irq|timer|osnoise|${escapeRe(RECORDER_GROUP)})/[a-z_]{1,40}/${file}$`,
  );

/**
 * Every setting xrunhunt journals (src/proc/xrun-debug-control.ts; src/kernel/source-kprobe.ts
 * journals the tracefs ones, with exactly these kinds and originals).
 */
const SETTING_SHAPES: readonly SettingShape[] = [
  {
    root: 'proc',
    relative: /^asound\/card\d+\/pcm\d+[pc]\/xrun_debug$/,
    kind: 'xrun_debug',
    original: isMask,
    what: 'an xrun_debug mask (a decimal integer)',
  },
  {
    root: 'tracefs',
    relative: /^kprobe_events$/,
    kind: 'append',
    original: (v) =>
      v === `-:${KPROBE_GROUP}/${KPROBE_EVENT}` || v === `-:${RECORDER_GROUP}/${RECORDER_EVENT}`,
    what: `the removal of xrunhunt's probe (-:${KPROBE_GROUP}/${KPROBE_EVENT} or -:${RECORDER_GROUP}/${RECORDER_EVENT})`,
  },
  {
    root: 'tracefs',
    relative: new RegExp(`^instances/${escapeRe(TRACE_INSTANCE)}$`),
    kind: 'rmdir',
    original: (v) => v === '',
    what: "the removal of xrunhunt's tracing instance",
  },
  {
    root: 'tracefs',
    relative: new RegExp(`^${escapeRe(kprobeEventDir)}/trigger$`),
    kind: 'append',
    original: (v) => v === '!stacktrace',
    what: 'the removal of the stacktrace trigger',
  },
  {
    root: 'tracefs',
    relative: new RegExp(`^${escapeRe(kprobeEventDir)}/enable$`),
    kind: 'value',
    original: (v) => v === '0',
    what: 'disabling the probe event (0)',
  },
  // The flight recorder (src/kernel/recorder-source.ts): its instance, its events, its triggers.
  {
    root: 'tracefs',
    relative: new RegExp(`^instances/${escapeRe(RECORDER_INSTANCE)}$`),
    kind: 'rmdir',
    original: (v) => v === '',
    what: "the removal of the flight recorder's tracing instance",
  },
  {
    root: 'tracefs',
    relative: recorderEventFile('enable'),
    kind: 'value',
    original: (v) => v === '0',
    what: 'disabling a flight recorder event (0)',
  },
  {
    root: 'tracefs',
    relative: recorderEventFile('trigger'),
    kind: 'append',
    original: (v) => v === '!stacktrace',
    what: 'the removal of a flight recorder stacktrace trigger',
  },
  // The run-time knobs of `xrunhunt try` (src/try/knobs/).
  {
    root: 'proc',
    relative:
      /^sys\/vm\/(dirty_bytes|dirty_background_bytes|dirty_ratio|dirty_background_ratio|swappiness)$/,
    kind: 'value',
    original: isWhole,
    what: 'a whole number',
  },
  {
    root: 'proc',
    relative: /^irq\/\d+\/smp_affinity_list$/,
    kind: 'value',
    original: isCpuList,
    what: 'a CPU list',
  },
  // `try irq.priority`: an IRQ thread's policy (journal-sched.ts); restore re-checks the thread.
  {
    root: 'proc',
    relative: /^\d+$/,
    kind: 'sched',
    original: (v) => IRQ_SCHED_ORIGINAL.test(v),
    what: 'the policy of an interrupt thread (POLICY:PRIORITY:STARTTICKS:irq/N-…)',
  },
  {
    root: 'sys',
    // Also where sysfs's own links lead: /sys/block/sda is a link into devices/…/block/sda, and
    // cpuN/cpufreq one to cpufreq/policyN (restore and the write check judge the real path).
    relative:
      /^(block\/[^/]+\/queue\/scheduler|devices\/(?:[^/]+\/){1,12}block\/[^/]+\/queue\/scheduler|devices\/system\/cpu\/cpu\d+\/cpufreq\/scaling_governor|devices\/system\/cpu\/cpufreq\/policy\d+\/scaling_governor|kernel\/mm\/transparent_hugepage\/enabled)$/,
    kind: 'value',
    original: isName,
    what: 'a scheduler, governor or hugepage mode name',
  },
];

/** The roots resolved to real paths (each may have several spellings: as given and realpath). */
export interface ResolvedRoots {
  proc: string[];
  /** /sys itself (the `try` knobs); tracefs lies under it but is matched on its own. */
  sys?: string[];
  tracefs: string[];
}

/** What restore may do with one entry. */
export type EntryVerdict =
  { trust: 'ok'; path: string } | { trust: 'gone' } | { trust: 'refused'; reason: string };

function under(root: string, path: string): string | null {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep) || resolve(root, rel) !== path)
    return null;
  return rel.split(sep).join('/');
}

/**
 * Pure rule for one entry: `real` is the entry's path after realpath (null when it does not
 * exist; then the path as written must itself lie under a root, and the entry counts as gone).
 */
export function judgeEntry(
  entry: JournalEntry,
  real: string | null,
  roots: ResolvedRoots,
): EntryVerdict {
  const shown = quoteUntrusted(entry.path);
  const path = real ?? resolve(entry.path);
  const matches = SETTING_SHAPES.filter((shape) =>
    (shape.root === 'proc'
      ? roots.proc
      : shape.root === 'sys'
        ? (roots.sys ?? [])
        : roots.tracefs
    ).some((root) => {
      const rel = under(root, path);
      return rel !== null && shape.relative.test(rel);
    }),
  );
  if (matches.length === 0) {
    return {
      trust: 'refused',
      reason: `${shown}${real !== null && real !== entry.path ? ` (really ${quoteUntrusted(real)})` : ''} is not a setting xrunhunt changes: expected an xrun_debug file under ${quoteUntrusted(roots.proc[0] ?? '/proc')}/asound/card*/pcm*/, a file of xrunhunt's kprobe or flight recorder under tracefs, or a setting "xrunhunt try" changes`,
    };
  }
  const shape = matches.find((s) => s.kind === entry.kind);
  if (!shape) {
    return {
      trust: 'refused',
      reason: `${shown} is journaled as kind ${quoteUntrusted(String(entry.kind))}, but xrunhunt journals it as ${matches.map((m) => m.kind).join(' or ')}`,
    };
  }
  if (
    typeof entry.original !== 'string' ||
    entry.original.length > ORIGINAL_MAX_CHARS ||
    !shape.original(entry.original)
  ) {
    return {
      trust: 'refused',
      reason: `${shown}: the journaled original ${JSON.stringify(quoteUntrusted(String(entry.original), ORIGINAL_MAX_CHARS))} is not ${shape.what}`,
    };
  }
  return real === null ? { trust: 'gone' } : { trust: 'ok', path: real };
}

/** Resolves the roots on disk: each as given and its realpath; tracefs at both mount points. */
export function resolveRoots(
  roots: SettingRoots,
  fs: Pick<typeof nodeFs, 'realpathSync'> = nodeFs,
): ResolvedRoots {
  const spellings = (p: string): string[] => {
    const given = resolve(p);
    try {
      const real = fs.realpathSync(given);
      return real === given ? [given] : [given, real];
    } catch {
      return [given];
    }
  };
  return {
    proc: spellings(roots.procRoot),
    sys: spellings(roots.sysRoot),
    tracefs: [
      ...spellings(join(roots.sysRoot, 'kernel', 'tracing')),
      ...spellings(join(roots.sysRoot, 'kernel', 'debug', 'tracing')),
    ],
  };
}

/** Realpath of an entry's path; null when it (or a folder on the way) does not exist. */
export function realPathOrNull(
  path: string,
  fs: Pick<typeof nodeFs, 'realpathSync'> = nodeFs,
): string | null {
  try {
    return fs.realpathSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/** The verdict on every entry of a journal, or the reasons it must not be restored at all. */
export type JournalVerdict =
  { trusted: true; paths: Map<JournalEntry, string> } | { trusted: false; reasons: string[] };

/**
 * Checks a journal's entries against the roots. Trusted: every entry names a setting xrunhunt
 * changes (gone ones included: restore drops them); `paths` maps entries to the real path to
 * write. One bad entry refuses the whole journal: it was not written by xrunhunt as it stands.
 */
export function judgeJournalEntries(
  entries: readonly JournalEntry[],
  roots: SettingRoots,
  fs: Pick<typeof nodeFs, 'realpathSync'> = nodeFs,
): JournalVerdict {
  const resolved = resolveRoots(roots, fs);
  const reasons: string[] = [];
  const paths = new Map<JournalEntry, string>();
  for (const entry of entries) {
    let real: string | null;
    try {
      real = realPathOrNull(entry.path, fs);
    } catch (err) {
      reasons.push(
        `${quoteUntrusted(entry.path)} cannot be resolved: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
      continue;
    }
    const verdict = judgeEntry(entry, real, resolved);
    if (verdict.trust === 'refused') reasons.push(verdict.reason);
    else if (verdict.trust === 'ok') paths.set(entry, verdict.path);
  }
  return reasons.length > 0 ? { trusted: false, reasons } : { trusted: true, paths };
}

/** Checks a journal file and its folder with lstat; returns why they are not trusted, or null. */
export function checkJournalFileTrust(
  file: string,
  uid: number,
  fs: Pick<typeof nodeFs, 'lstatSync'> = nodeFs,
): string | null {
  const dir = dirname(file);
  const dirWhy = judgeOwnership(lstatFacts(dir, fs), 'directory', uid);
  if (dirWhy !== null) return `its folder ${quoteUntrusted(dir)}: ${dirWhy}`;
  return judgeOwnership(lstatFacts(file, fs), 'file', uid);
}

/** The user id journals must belong to: the effective uid (root under sudo). */
export function runningUid(): number {
  return process.geteuid?.() ?? process.getuid?.() ?? 0;
}

/**
 * Refuses to add to a journal whose entries do not all pass the trust check for `roots` (a
 * manual journal written with another --proc-root): restore refuses a journal whole, so mixing
 * trees in one journal would strand the new originals too.
 */
export function assertJournalFitsRoots(
  file: string,
  entries: readonly JournalEntry[],
  roots: SettingRoots,
): void {
  const verdict = judgeJournalEntries(entries, roots);
  if (verdict.trusted) return;
  throw new XrunhuntError(
    'resource',
    `refusing to add to the settings journal ${quoteUntrusted(file)}: ${verdict.reasons[0]!}`,
    {
      hint: `it holds originals xrunhunt would not restore under --proc-root ${quoteUntrusted(roots.procRoot)}; run "xrunhunt debug restore" with the --proc-root/--sys-root it was written for, or remove it if you did not create it`,
    },
  );
}

/**
 * The restore-side rule applied BEFORE a change (issue 30): a setting whose real path, kind or
 * original restore would refuse is never written, since the change could then never be undone.
 */
export function assertRestorableChange(
  entry: Pick<JournalEntry, 'path' | 'original' | 'kind'>,
  roots: SettingRoots,
  fs: Pick<typeof nodeFs, 'realpathSync'> = nodeFs,
): void {
  const verdict = judgeJournalEntries(
    [{ ...entry, path: resolve(entry.path), recordedAt: '' }],
    roots,
    fs,
  );
  if (verdict.trusted) return;
  throw new XrunhuntError(
    'permission',
    `refusing to change ${quoteUntrusted(entry.path)}: ${verdict.reasons[0]!}; restore would refuse it, so the change could never be undone`,
    {
      hint: 'nothing was written; check that --proc-root/--sys-root name the tree you meant, and that its files are real files, not links to elsewhere',
    },
  );
}

/** The /proc/PID/stat facts the 'sched' restore checks (see journal-sched.ts parseSchedStat). */
export interface SchedFacts {
  flags: number;
  startTicks: number;
  priority: number;
  policy: number;
}

/** PF_KTHREAD in the stat flags: the task is a kernel thread (include/linux/sched.h). */
const PF_KTHREAD = 0x0020_0000;

/**
 * Pure rule before a 'sched' entry is restored: a planted journal must not make root change
 * the scheduling of an arbitrary process, so the pid must still be a KERNEL thread named
 * irq/N-… with the journaled comm and start time. Returns why not, or null.
 * `acceptUserThread` exists only for the real restore test on a spawned child (see
 * journal-sched.ts); nothing else sets it.
 */
export function judgeSchedTarget(
  want: { comm: string; startTicks: number },
  now: ({ comm: string } & SchedFacts) | null,
  acceptUserThread = false,
): string | null {
  if (!/^irq\/\d+-/.test(want.comm))
    return `the journaled name ${quoteUntrusted(want.comm)} is not an interrupt thread (irq/N-…)`;
  if (now === null) return 'it has ended';
  if (now.comm !== want.comm)
    return `it is now ${quoteUntrusted(now.comm)}, not ${quoteUntrusted(want.comm)}`;
  if (now.startTicks !== want.startTicks)
    return `it started at tick ${now.startTicks}, not ${want.startTicks} (the pid was reused)`;
  if (!acceptUserThread && (now.flags & PF_KTHREAD) === 0) return 'it is not a kernel thread';
  return null;
}
