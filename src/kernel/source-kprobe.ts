// The capture backend for stock kernels (no xrun_debug): a kprobe event on __snd_pcm_xrun with
// a `stacktrace` trigger, recorded into xrunhunt's own tracing instance and read live from its
// trace_pipe (platform-facts §5b). The lines are ftrace text (`… xrun: (__snd_pcm_xrun+0x0/0xc0)`,
// `<stack trace>`, ` => frame`) that the analyzer reads like any kernel log.
//
// Every change goes through a crash-safe journal (session-<pid>-kprobe.json) BEFORE it is made,
// recorded in the reverse of the teardown order the kernel demands (anything else is EBUSY, and
// a leftover trigger keeps recording): enable=0, !stacktrace, rmdir the instance, then
// `-:xrunhunt/xrun` appended (never truncated: O_TRUNC on kprobe_events deletes every probe).
// close(), process exit and — after a kill -9 — the next start (restorePendingJournals) undo it.
import { closeSync, constants, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, errorMessage, XrunhuntError } from '../errors.js';
import { readKallsyms } from '../proc/kallsyms-read.js';
import {
  SettingsJournal,
  assertNoLiveSession,
  currentOwner,
  realSettingFileIo,
  sessionPartJournalFile,
} from '../proc/index.js';
import type { RestoreReport, SettingFileIo } from '../proc/index.js';
import { measureClockByMarker } from './clock-marker.js';
import type { CaptureCandidate, ClockOffset, KernelCaptureSource } from './source-contract.js';
import { LineQueue } from './source-queue.js';
import {
  KPROBE_EVENT,
  KPROBE_GROUP,
  TRACE_INSTANCE,
  explainKprobeFailure,
  kprobeDefinition,
  kprobeRemoval,
  moduleSymbolsFromKallsyms,
  parseLostEvents,
  parseProcModules,
  parseAsoundCards,
  parseKprobeProfile,
  parseTraceMarker,
  resolveRawFrameLine,
  stacktraceTrigger,
  checkStreamArgs,
  stripStreamArgs,
} from './tracefs.js';
import type {
  ProbeProfile,
  LoadedModule,
  ModuleSymbolSnapshot,
  ProbeArmState,
  XrunProbePoint,
} from './tracefs.js';
import {
  findProbePoint,
  locateTracefs,
  probeArmState,
  readLockdown,
  tracefsWriteError,
  causeErrno,
} from './tracefs-io.js';
import { readTracePipe } from './trace-pipe-reader.js';

/** One batch of reads (trace-pipe-reader.ts): 64 KiB takes a burst of ~100 stacks. */
const READ_BUFFER_BYTES = 64 * 1024;
/** A "line" longer than this is not ftrace text: dropped (bounded memory), with a warning. */
const MAX_LINE_BYTES = 64 * 1024;
/**
 * Ring buffer per CPU of the instance. Read live every 10 ms, one stack event is ~300 bytes in
 * the binary buffer: 4 MiB holds ~13,000 stacks, minutes of the worst TCG rate (2,400 xruns/min)
 * if the reader stalls; platform-facts measured 8 MiB for a buffer read only at the end.
 */
const BUFFER_SIZE_KB = 4096;
/** How often /proc/modules is checked for new modules whose symbols must be snapshotted. */
const MODULE_POLL_MS = 250;
/**
 * Reads of /proc/kallsyms per module load that may come back without its symbols (caught while
 * loading or unloading); each read is ~3 MB, 0.25–0.65 s under TCG in the lab.
 */
const SNAPSHOT_TRIES = 3;
/** How long measureClockOffset waits for its marker to come back through trace_pipe. */
const MARKER_TIMEOUT_MS = 2000;
/** Journal part name: session-<pid>-kprobe.json. */
export const KPROBE_JOURNAL_PART = 'kprobe';

/** What was installed, for reports and doctor. */
export interface KprobeSetup {
  tracefs: string;
  instance: string;
  point: XrunProbePoint;
  /** From /sys/kernel/debug/kprobes/list; 'unknown' without debugfs. */
  armed: ProbeArmState | 'unknown';
  /** The definition written to kprobe_events. */
  definition: string;
}

export interface KprobeSourceOptions {
  journalDir: string;
  toolVersion: string;
  /** Named in the journal (for messages about a killed run). */
  command?: string;
  sysRoot?: string;
  procRoot?: string;
  euid?: number;
  io?: SettingFileIo;
  /** Folder creation and the trace_pipe descriptor; the default is the real file system. */
  fs?: TracefsFolderOps;
  now?: () => bigint;
  sleep?: (ms: number) => Promise<void>;
}

/** The operations on tracefs that are not setting-file reads and writes. */
export interface TracefsFolderOps {
  mkdir(path: string): void;
  /** Opens trace_pipe non-blocking (O_RDONLY|O_NONBLOCK), returns the fd. */
  openPipe(path: string): number;
  closePipe(fd: number): void;
}

/** The real tracefs: mkdir creates an instance, trace_pipe is read non-blocking. */
export const realTracefsFolderOps: TracefsFolderOps = {
  mkdir: (path) => mkdirSync(path),
  openPipe: (path) => openSync(path, constants.O_RDONLY | constants.O_NONBLOCK),
  closePipe: (fd) => closeSync(fd),
};

export type KprobeCaptureSource = KernelCaptureSource & {
  /** Set once start() succeeded. */
  readonly setup: KprobeSetup | null;
  /** Probe hits and misses read from kprobe_profile at close (null before, or when unreadable). */
  readonly profile: ProbeProfile | null;
  /** What close() put back (null before close or when nothing was changed). */
  readonly restoreReport: RestoreReport | null;
};

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// Paths of the files the backend touches inside one tracefs mount.
export function kprobePaths(tracefs: string) {
  const instance = join(tracefs, 'instances', TRACE_INSTANCE);
  const event = join(instance, 'events', KPROBE_GROUP, KPROBE_EVENT);
  return {
    kprobeEvents: join(tracefs, 'kprobe_events'),
    instance,
    bufferSizeKb: join(instance, 'buffer_size_kb'),
    symOffset: join(instance, 'options', 'sym-offset'),
    traceClock: join(instance, 'trace_clock'),
    traceMarker: join(instance, 'trace_marker'),
    tracePipe: join(instance, 'trace_pipe'),
    enable: join(event, 'enable'),
    trigger: join(event, 'trigger'),
    filter: join(event, 'filter'),
  };
}

/** A kprobe capture; nothing is changed in the kernel until start(). */
export function createKprobeSource(options: KprobeSourceOptions): KprobeCaptureSource {
  const sysRoot = options.sysRoot ?? '/sys';
  const procRoot = options.procRoot ?? '/proc';
  const io = options.io ?? realSettingFileIo;
  const fs = options.fs ?? realTracefsFolderOps;
  const now = options.now ?? (() => process.hrtime.bigint());
  const sleep = options.sleep ?? realSleep;
  const euid = options.euid ?? process.geteuid?.() ?? 0;
  const queue = new LineQueue();
  const warnings: string[] = [];
  const markerWaiters = new Map<string, (seconds: number) => void>();
  let setup: KprobeSetup | null = null;
  let journal: SettingsJournal | null = null;
  let fd: number | null = null;
  let closed = false;
  let loop: Promise<void> | null = null;
  let lost = 0;
  let restoreReport: RestoreReport | null = null;
  let resolvedFrames = 0;
  let profile: ProbeProfile | null = null;
  /** Probe hits seen in trace_pipe (compared with kprobe_profile's count at close). */
  let hitLines = 0;
  let cards = new Map<number, string>();
  let argsMismatchWarned = false;
  /** Lines over MAX_LINE_BYTES dropped by the reader (warned about once). */
  let overlong = 0;
  // Module symbol snapshot (ftrace names module frames only while the module is loaded).
  const modules = new Map<string, LoadedModule>();
  const snapshot: ModuleSymbolSnapshot = new Map();
  const snapshotTries = new Map<string, number>();
  let lastModulePoll = 0;

  const closeFd = (): void => {
    if (fd === null) return;
    try {
      fs.closePipe(fd);
    } catch {
      // already closed
    }
    fd = null;
  };

  // Synchronous teardown: usable from process.on('exit') (a second Ctrl-C calls process.exit).
  const teardown = (): RestoreReport | null => {
    closeFd();
    if (!journal) return restoreReport;
    if (setup) {
      // Before the probe goes: how often it fired, and how often the kernel skipped it.
      try {
        profile = parseKprobeProfile(io.read(join(setup.tracefs, 'kprobe_profile')));
      } catch {
        profile = null;
      }
    }
    const j = journal;
    journal = null;
    process.off('exit', onExit);
    restoreReport = j.restore();
    return restoreReport;
  };
  const onExit = (): void => void teardown();

  const pollModules = (): void => {
    const t = Date.now();
    if (t - lastModulePoll < MODULE_POLL_MS) return;
    lastModulePoll = t;
    let list: LoadedModule[];
    try {
      list = parseProcModules(readFileSync(join(procRoot, 'modules'), 'utf8'));
    } catch {
      return;
    }
    // New modules (or reloaded at another address) whose symbols are not snapshotted yet. A
    // module caught while loading or unloading may list no symbols: retried a few times.
    // A retry wants a new read of kallsyms: the last one lacked these modules' symbols.
    let retry = false;
    const fresh = list.filter((m) => {
      const known = modules.get(m.name);
      if (known && known.base === m.base && snapshot.has(m.name)) return false;
      const key = `${m.name}@${m.base.toString(16)}`;
      const n = snapshotTries.get(key) ?? 0;
      snapshotTries.set(key, n + 1);
      if (n > 0 && n < SNAPSHOT_TRIES) retry = true;
      return n < SNAPSHOT_TRIES;
    });
    if (fresh.length === 0) return;
    try {
      const syms = moduleSymbolsFromKallsyms(
        readKallsyms(procRoot, retry),
        new Set(fresh.map((m) => m.name)),
      );
      for (const m of fresh) {
        const found = syms.get(m.name);
        if (!found || found.length === 0) continue;
        modules.set(m.name, m);
        snapshot.set(m.name, found);
      }
    } catch {
      // kallsyms unreadable: frames of unloaded modules stay raw addresses.
    }
  };

  const handleLines = (lines: string[]): void => {
    const readNs = Number(now());
    for (const raw of lines) {
      const l = parseLostEvents(raw);
      if (l > 0) {
        lost += l;
        continue;
      }
      let marked = false;
      for (const [marker, resolve] of markerWaiters) {
        const ts = parseTraceMarker(raw, marker);
        if (ts !== null) {
          resolve(ts);
          marked = true;
        }
      }
      if (marked) continue;
      if (raw.includes(`: ${KPROBE_EVENT}: (`)) hitLines++;
      let line = resolveRawFrameLine(raw, snapshot, modules);
      if (checkStreamArgs(line, cards) === 'mismatch') {
        // The structure offsets do not fit this kernel: never report a wrong stream.
        line = stripStreamArgs(line);
        if (!argsMismatchWarned) {
          argsMismatchWarned = true;
          warnings.push(
            'the stream fetch args did not match /proc/asound/cards (structure offsets differ on this kernel); events are reported without their stream',
          );
        }
      }
      if (line !== raw) resolvedFrames++;
      queue.push({ text: line, readNs });
    }
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    try {
      await readTracePipe({
        fd: () => fd,
        stopped: () => closed || signal.aborted,
        closing: () => closed,
        onLines: handleLines,
        onOverlong: () => {
          overlong++;
          if (overlong === 1)
            warnings.push(
              'trace_pipe gave a line over 64 KiB: it is not ftrace text and was dropped (and any more like it)',
            );
        },
        beforeBatch: pollModules,
        sleep,
        bufferBytes: READ_BUFFER_BYTES,
        maxLineBytes: MAX_LINE_BYTES,
      });
    } catch (err) {
      warnings.push(`reading trace_pipe failed: ${errorMessage(err)}`);
    } finally {
      queue.end();
    }
  };

  const fail = (file: string, err: unknown): XrunhuntError =>
    tracefsWriteError({ euid, sysRoot, file }, err);

  const install = (): KprobeSetup => {
    if (euid !== 0) {
      throw new XrunhuntError('permission', 'kprobe capture needs root (tracefs and kprobes)', {
        hint: 'run xrunhunt as root (sudo)',
      });
    }
    const where = locateTracefs(sysRoot);
    if ('error' in where) {
      throw new XrunhuntError('unsupported', `kprobe capture unavailable: ${where.error}`, {
        hint: 'use a kernel with CONFIG_KPROBE_EVENTS=y and tracefs mounted, or one with CONFIG_SND_PCM_XRUN_DEBUG',
      });
    }
    const lockdown = readLockdown(sysRoot);
    if (lockdown === 'confidentiality') {
      const why = explainKprobeFailure({ euid, lockdown, errno: 'EPERM', file: 'tracefs' });
      throw new XrunhuntError('permission', why.message, { hint: why.hint });
    }
    const choice = findProbePoint(procRoot, sysRoot);
    if (!choice.point) {
      throw new XrunhuntError('unsupported', `kprobe capture unavailable: ${choice.reason}`);
    }
    const point = choice.point;
    for (const s of choice.skipped) warnings.push(`kprobe on ${point.symbol}, not ${s}`);
    const p = kprobePaths(where.dir);
    assertNoLiveSession(options.journalDir, [p.kprobeEvents, p.instance]);
    removeLeftover(p);

    const j = SettingsJournal.open(
      sessionPartJournalFile(options.journalDir, process.pid, KPROBE_JOURNAL_PART),
      currentOwner(options.command ?? 'session --capture kprobe', true, options.toolVersion),
      { io },
    );
    journal = j;
    process.once('exit', onExit);
    // 1. the probe (journal first: a kill -9 between the two lines leaves a removal that is harmless).
    // With fetch args naming the stream when the kernel takes them, else the plain probe.
    j.record(p.kprobeEvents, kprobeRemoval(), 'append');
    let definition = kprobeDefinition(point, true, process.arch);
    try {
      try {
        io.append!(p.kprobeEvents, `${definition}\n`);
      } catch (err) {
        if (causeErrno(err) !== 'EINVAL' && causeErrno(err) !== 'E2BIG') throw err;
        warnings.push(
          `the kernel refused the stream fetch args (${causeErrno(err)}); XRUN stacks are captured without naming the stream`,
        );
        definition = kprobeDefinition(point, false, process.arch);
        io.append!(p.kprobeEvents, `${definition}\n`);
      }
    } catch (err) {
      j.forget([p.kprobeEvents]);
      throw fail(p.kprobeEvents, err);
    }
    try {
      cards = parseAsoundCards(readFileSync(join(procRoot, 'asound', 'cards'), 'utf8'));
    } catch {
      cards = new Map();
    }
    // 2. the instance (its buffer, options and event files vanish with it).
    j.record(p.instance, '', 'rmdir');
    try {
      fs.mkdir(p.instance);
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') {
        j.forget([p.instance]);
        throw fail(p.instance, err);
      }
    }
    const tryWrite = (path: string, value: string, what: string): void => {
      try {
        io.write(path, value);
      } catch (err) {
        warnings.push(`could not set ${what}: ${errorMessage(err)}`);
      }
    };
    tryWrite(p.bufferSizeKb, String(BUFFER_SIZE_KB), 'the trace buffer size');
    // sym-offset: `func+0x5d/0x250 [module]`, the form the analyzer's frame parser reads.
    tryWrite(p.symOffset, '1', 'options/sym-offset');
    // mono: trace timestamps on CLOCK_MONOTONIC, the clock the playback engine stamps xruns with.
    tryWrite(p.traceClock, 'mono', 'trace_clock');
    if (point.filter) {
      try {
        io.write(p.filter, point.filter);
      } catch (err) {
        throw fail(p.filter, err);
      }
    }
    // 3. trigger and enable; the teardown undoes them first (newest journal entry first).
    j.record(p.trigger, '!stacktrace', 'append');
    try {
      io.append!(p.trigger, stacktraceTrigger(point));
    } catch (err) {
      throw fail(p.trigger, err);
    }
    j.record(p.enable, '0');
    try {
      io.write(p.enable, '1');
    } catch (err) {
      throw fail(p.enable, err);
    }
    const armed = probeArmState(point.symbol, sysRoot);
    if (armed === 'disabled' || armed === 'gone' || armed === 'absent') {
      warnings.push(
        `the kprobe on ${point.symbol} is installed but /sys/kernel/debug/kprobes/list shows it ${armed}: XRUN stacks may be missing`,
      );
    }
    try {
      fd = fs.openPipe(p.tracePipe);
    } catch (err) {
      throw fail(p.tracePipe, err);
    }
    return { tracefs: where.dir, instance: p.instance, point, armed, definition };
  };

  // A probe or instance left by a run whose journal is gone (e.g. a wiped /run): remove it in
  // the order the kernel accepts; nothing here belongs to a live run (checked just before).
  const removeLeftover = (p: ReturnType<typeof kprobePaths>): void => {
    let defined = false;
    try {
      defined = io
        .read(p.kprobeEvents)
        .split('\n')
        .some((l) => l.startsWith(`p:${KPROBE_GROUP}/${KPROBE_EVENT} `));
    } catch {
      return;
    }
    let instance = false;
    try {
      io.read(p.bufferSizeKb);
      instance = true;
    } catch {
      instance = false;
    }
    if (!defined && !instance) return;
    const steps: [string, () => void][] = [
      ['disable', () => instance && io.write(p.enable, '0')],
      ['untrigger', () => instance && io.append!(p.trigger, '!stacktrace')],
      ['remove instance', () => instance && io.removeDir!(p.instance)],
      ['remove probe', () => defined && io.append!(p.kprobeEvents, kprobeRemoval())],
    ];
    for (const [what, step] of steps) {
      try {
        step();
      } catch (err) {
        warnings.push(`leftover xrunhunt probe: ${what} failed: ${errorMessage(err)}`);
      }
    }
    warnings.push('removed an xrunhunt kprobe left by an earlier run');
  };

  return {
    name: 'trace_pipe',
    get lostMessages() {
      return lost;
    },
    warnings,
    get setup() {
      return setup;
    },
    get restoreReport() {
      return restoreReport;
    },
    get profile() {
      return profile;
    },
    async start(signal: AbortSignal) {
      try {
        setup = install();
      } catch (err) {
        teardown();
        throw err;
      }
      signal.addEventListener('abort', () => void this.close(), { once: true });
      loop = run(signal);
    },
    async close() {
      if (closed) return;
      closed = true;
      await loop;
      queue.end();
      const report = teardown();
      if (report) {
        for (const f of report.failed)
          warnings.push(
            `could not restore ${f.path} (${f.value}): ${f.error}; run "xrunhunt debug restore"`,
          );
      }
      if (profile && profile.hits > hitLines)
        warnings.push(
          `the kprobe fired ${profile.hits} times but trace_pipe delivered ${hitLines} hits: ${profile.hits - hitLines} were dropped by the trace buffer`,
        );
      if (profile && profile.missed > 0)
        warnings.push(
          `the kernel skipped the kprobe ${profile.missed} times of ${profile.hits + profile.missed} (kprobe_profile "missed": a hit while another probe or ftrace callback ran): those XRUNs have no stack`,
        );
      if (resolvedFrames > 0)
        warnings.push(
          `${resolvedFrames} stack frames of since-unloaded modules were named from a symbol snapshot taken while they were loaded`,
        );
    },
    async measureClockOffset(): Promise<ClockOffset | null> {
      if (!setup) return null;
      const traceMarker = join(setup.instance, 'trace_marker');
      const m = await measureClockByMarker({
        now,
        write: (marker) => io.write(traceMarker, marker),
        seen: (marker) =>
          new Promise<bigint>((resolve) =>
            markerWaiters.set(marker, (seconds) =>
              resolve(BigInt(Math.round(seconds * 1e6)) * 1000n),
            ),
          ),
        forget: (marker) => markerWaiters.delete(marker),
        timeoutMs: MARKER_TIMEOUT_MS,
      });
      if (m === null || !('failed' in m)) return m;
      warnings.push(`could not write a clock marker to trace_marker (${errorMessage(m.failed)})`);
      return null;
    },
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}

// The session's candidate for `--capture kprobe` (and auto without xrun_debug).
export function kprobeCaptureCandidate(options: KprobeSourceOptions): CaptureCandidate {
  return {
    name: 'trace_pipe',
    async open() {
      const euid = options.euid ?? process.geteuid?.() ?? 0;
      if (euid !== 0) return { unavailable: 'kprobe: needs root (tracefs and kprobes)' };
      const where = locateTracefs(options.sysRoot ?? '/sys');
      if ('error' in where) return { unavailable: `kprobe: ${where.error}` };
      return createKprobeSource(options);
    },
  };
}
