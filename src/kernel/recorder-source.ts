// The flight recorder's IO shell (issue 17): scheduler, interrupt, softirq and hrtimer events plus
// its own xrun kprobe with a `stacktrace` trigger, recorded in its OWN tracefs instance
// (`xrunhunt-recorder`: never the global buffer, never the kprobe backend's `xrunhunt`), read
// continuously from that instance's trace_pipe (non-blocking, like source-kprobe.ts) and handed
// line by line to a consumer. Nothing is kept here but one partial line.
//
// Every change goes through a crash-safe journal (session-<pid>-recorder.json) BEFORE it is made,
// recorded in the reverse of the teardown order the kernel demands: triggers off, events off,
// rmdir the instance (its buffer, options and cpumask vanish with it), then `-:xrunhunt_rec/xrun`
// appended to kprobe_events (never truncated). close(), process exit and — after a kill -9 — the
// next start (restorePendingJournals, which trusts exactly these entries: journal-trust.ts) undo it.
import { join } from 'node:path';
import { readFileSync, readdirSync } from 'node:fs';
import { errnoCode, errorMessage, XrunhuntError } from '../errors.js';
import {
  SettingsJournal,
  assertNoLiveSession,
  currentOwner,
  realSettingFileIo,
  sessionPartJournalFile,
} from '../proc/index.js';
import type { RestoreReport, SettingFileIo } from '../proc/index.js';
import { realTracefsFolderOps } from './source-kprobe.js';
import type { TracefsFolderOps } from './source-kprobe.js';
import {
  OSNOISE_SYSTEM,
  RECORDER_BUFFER_KB,
  RECORDER_EVENTS,
  RECORDER_GROUP,
  RECORDER_EVENT,
  RECORDER_JOURNAL_PART,
  RECORDER_XRUN_EVENT,
  cpuMaskHex,
  irqStacktraceTrigger,
  parseSoundIrqs,
  recorderKprobeDefinition,
  recorderKprobeRemoval,
  recorderPaths,
  addRingBufferStats,
  parseTraceLineHead,
  recorderDrainMs,
  recorderProbeHits,
} from './recorder-setup.js';
import type { RecorderEventName, RingBufferLoss, SoundIrq } from './recorder-setup.js';
import { explainKprobeFailure, parseLostEvents, stacktraceTrigger } from './tracefs.js';
import type { XrunProbePoint } from './tracefs.js';
import {
  causeErrno,
  findProbePoint,
  locateTracefs,
  readLockdown,
  tracefsWriteError,
} from './tracefs-io.js';
import { readTracePipe } from './trace-pipe-reader.js';

/** One batch of reads takes up to this much: ~2,000 event lines, 0.1 s of the lab's measured rate. */
const READ_BUFFER_BYTES = 256 * 1024;
/** A "line" longer than this is not ftrace text: it is dropped and counted, never kept. */
const MAX_LINE_BYTES = 64 * 1024;

export { RECORDER_JOURNAL_PART };

export interface RecorderSourceOptions {
  journalDir: string;
  toolVersion: string;
  /** Named in the journal (for messages about a killed run). */
  command?: string;
  /** Every raw trace_pipe line (events, `<stack trace>`, ` => frame`), in order. */
  onLine: (line: string) => void;
  /**
   * 'required' (sessions: the hits are the point) or 'optional' (the overhead benchmark on a
   * kernel without sound or kprobe events: the scheduler/irq tracing alone).
   */
  xrunProbe?: 'required' | 'optional';
  /** Also enable osnoise:* when the kernel has it (they fire only under the osnoise tracer). */
  osnoise?: boolean;
  /** Record only these CPUs (tracing_cpumask of the instance); all CPUs when absent. */
  cpus?: readonly number[];
  bufferKb?: number;
  /** How long close() may drain the backlog (ms); recorderDrainMs of the reader's lag by default. */
  drainMs?: number;
  sysRoot?: string;
  procRoot?: string;
  euid?: number;
  arch?: string;
  io?: SettingFileIo;
  fs?: TracefsFolderOps;
  sleep?: (ms: number) => Promise<void>;
}

/** What was installed, for reports. */
export interface RecorderSetup {
  tracefs: string;
  instance: string;
  /** `system:event` of every event enabled (the xrun probe included when installed). */
  events: string[];
  /** Events the kernel lacks or refused, with the reason. */
  skipped: string[];
  /** The kprobe definition written, or null without a probe (optional mode). */
  probe: string | null;
  point: XrunProbePoint | null;
  /** The sound card's interrupts that got a stacktrace trigger. */
  irqs: SoundIrq[];
  bufferKb: number;
  cpus: readonly number[] | null;
}

/** Counters of what trace_pipe delivered. */
export interface RecorderCounts {
  lines: number;
  /** Events the ring buffer dropped (`[LOST n EVENTS]`). */
  lostEvents: number;
  /** Over-long partial lines dropped by the reader. */
  droppedLines: number;
  bytes: number;
  /** Hits of the recorder's probe by kprobe_profile at close (null: unknown), the ground truth. */
  probeHits: number | null;
  /** What the ring buffer reported lost at close (per_cpu stats), null before. */
  ringLoss: RingBufferLoss | null;
  /** Lines read after recording stopped at close (the backlog the reader was behind by). */
  drainedLines: number;
  /** Whether that drain emptied the buffer (false: its deadline cut it; null: no drain ran). */
  drainEmptied: boolean | null;
  /** How far the reader was behind the kernel: now − newest line's time, seconds, per batch. */
  maxLagSeconds: number;
  /** The same just before recording stopped at close. */
  lagAtStopSeconds: number | null;
}

export interface RecorderSource {
  /** Installs everything (journaled) and starts reading; throws a clear XrunhuntError on refusal. */
  start(): Promise<RecorderSetup>;
  /** Stops reading and undoes everything (safe to call twice, never throws). */
  close(): Promise<void>;
  readonly setup: RecorderSetup | null;
  readonly counts: RecorderCounts;
  readonly warnings: string[];
  readonly restoreReport: RestoreReport | null;
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const eventLabel = (e: RecorderEventName): string => `${e.system}:${e.event}`;

/** Why the recorder cannot run on this machine (null: it can), without changing anything. */
export function recorderUnavailable(o: {
  sysRoot?: string;
  euid?: number;
  xrunProbe?: 'required' | 'optional';
}): string | null {
  const euid = o.euid ?? process.geteuid?.() ?? 0;
  if (euid !== 0) return 'the flight recorder needs root (tracefs)';
  const where = locateTracefs(o.sysRoot ?? '/sys', o.xrunProbe === 'optional' ? 'trace' : 'kprobe');
  if ('error' in where) return where.error;
  if (readLockdown(o.sysRoot ?? '/sys') === 'confidentiality')
    return 'the kernel is locked down (confidentiality), which blocks tracefs';
  return null;
}

/** A flight recorder; nothing is changed in the kernel until start(). */
export function createRecorderSource(options: RecorderSourceOptions): RecorderSource {
  const sysRoot = options.sysRoot ?? '/sys';
  const procRoot = options.procRoot ?? '/proc';
  const io = options.io ?? realSettingFileIo;
  const fs = options.fs ?? realTracefsFolderOps;
  const sleep = options.sleep ?? realSleep;
  const euid = options.euid ?? process.geteuid?.() ?? 0;
  const probeMode = options.xrunProbe ?? 'required';
  const warnings: string[] = [];
  const counts: RecorderCounts = {
    lines: 0,
    lostEvents: 0,
    droppedLines: 0,
    bytes: 0,
    probeHits: null,
    ringLoss: null,
    drainedLines: 0,
    drainEmptied: null,
    maxLagSeconds: 0,
    lagAtStopSeconds: null,
  };
  let lastLag: number | null = null;
  let setup: RecorderSetup | null = null;
  let journal: SettingsJournal | null = null;
  let fd: number | null = null;
  let closed = false;
  let loop: Promise<void> | null = null;
  let restoreReport: RestoreReport | null = null;

  const closeFd = (): void => {
    if (fd === null) return;
    try {
      fs.closePipe(fd);
    } catch {
      // already closed
    }
    fd = null;
  };

  // Synchronous teardown: usable from process.on('exit').
  const teardown = (): RestoreReport | null => {
    closeFd();
    if (!journal) return restoreReport;
    if (setup) readFinalCounts(setup);
    const j = journal;
    journal = null;
    process.off('exit', onExit);
    restoreReport = j.restore();
    return restoreReport;
  };
  const onExit = (): void => void teardown();

  // The probe's true hit count (kprobe_profile), read once: at close once the probe is off, or
  // at teardown on the other exit paths.
  let probeHitsRead = false;
  const readProbeHits = (s: RecorderSetup): void => {
    if (probeHitsRead || !s.probe) return;
    probeHitsRead = true;
    const p = recorderPaths(s.tracefs);
    try {
      counts.probeHits = recorderProbeHits(io.read(p.kprobeEvents), io.read(p.kprobeProfile));
    } catch {
      counts.probeHits = null;
    }
  };

  // Before the probe and the instance go: the probe's true hit count and the buffer's own losses.
  const readFinalCounts = (s: RecorderSetup): void => {
    readProbeHits(s);
    try {
      let loss: RingBufferLoss = { overrun: 0, commitOverrun: 0, dropped: 0 };
      for (const cpu of readdirSync(join(s.instance, 'per_cpu')))
        loss = addRingBufferStats(io.read(join(s.instance, 'per_cpu', cpu, 'stats')), loss);
      counts.ringLoss = loss;
    } catch {
      counts.ringLoss = null;
    }
  };

  const handleLines = (lines: string[]): void => {
    for (const line of lines) {
      if (line.startsWith('CPU:')) counts.lostEvents += parseLostEvents(line);
      counts.lines++;
      options.onLine(line);
    }
    // Not while draining at close: recording has stopped, the newest line only ages.
    const lag = closed ? null : readerLag(lines, monoSeconds());
    if (lag !== null) {
      lastLag = lag;
      if (lag > counts.maxLagSeconds) counts.maxLagSeconds = lag;
    }
  };

  // Close, part one: no new hits (the probe's event off, so kprobe_profile stops counting) and
  // nothing new recorded (the instance's tracing_on 0); the reader then drains what is left.
  const stopRecording = (s: RecorderSetup): void => {
    counts.lagAtStopSeconds = lastLag;
    const p = recorderPaths(s.tracefs);
    if (s.probe) {
      try {
        io.write(p.enable(RECORDER_XRUN_EVENT), '0');
      } catch (err) {
        warnings.push(`could not stop the recorder's probe before draining: ${errorMessage(err)}`);
      }
    }
    try {
      io.write(p.tracingOn, '0');
    } catch (err) {
      warnings.push(`could not stop recording before draining: ${errorMessage(err)}`);
    }
    readProbeHits(s);
  };

  const run = async (): Promise<void> => {
    try {
      await readTracePipe({
        fd: () => fd,
        stopped: () => closed,
        closing: () => closed,
        onLines: handleLines,
        onBytes: (n) => (counts.bytes += n),
        onOverlong: () => counts.droppedLines++,
        drainMs: () => options.drainMs ?? recorderDrainMs(counts.lagAtStopSeconds),
        onDrained: (emptied, n) => {
          counts.drainEmptied = emptied;
          counts.drainedLines = n;
        },
        sleep,
        bufferBytes: READ_BUFFER_BYTES,
        maxLineBytes: MAX_LINE_BYTES,
      });
    } catch (err) {
      warnings.push(`reading the recorder's trace_pipe failed: ${errorMessage(err)}`);
    }
  };

  const fail = (file: string, err: unknown): XrunhuntError =>
    tracefsWriteError({ euid, sysRoot, file, prefix: 'flight recorder: ' }, err);

  const exists = (path: string): boolean => {
    try {
      io.read(path);
      return true;
    } catch {
      return false;
    }
  };

  const install = (): RecorderSetup => {
    if (euid !== 0) {
      throw new XrunhuntError('permission', 'the flight recorder needs root (tracefs)', {
        hint: 'run xrunhunt as root (sudo), or leave --recorder off',
      });
    }
    const where = locateTracefs(sysRoot, probeMode === 'optional' ? 'trace' : 'kprobe');
    if ('error' in where) {
      throw new XrunhuntError('unsupported', `flight recorder unavailable: ${where.error}`, {
        hint: 'use a kernel with CONFIG_FTRACE and CONFIG_KPROBE_EVENTS (Debian, Fedora and Ubuntu kernels have them) with tracefs mounted, or leave --recorder off',
      });
    }
    const lockdown = readLockdown(sysRoot);
    if (lockdown === 'confidentiality') {
      const why = explainKprobeFailure({ euid, lockdown, errno: 'EPERM', file: 'tracefs' });
      throw new XrunhuntError('permission', `flight recorder: ${why.message}`, {
        hint: why.hint,
      });
    }
    let point: XrunProbePoint | null = null;
    const skipped: string[] = [];
    const hasKprobeEvents = exists(join(where.dir, 'kprobe_events'));
    if (hasKprobeEvents) {
      const choice = findProbePoint(procRoot, sysRoot);
      if (choice.point) point = choice.point;
      else if (probeMode === 'required')
        throw new XrunhuntError('unsupported', `flight recorder unavailable: ${choice.reason}`, {
          hint: 'the recorder explains XRUNs it sees through its kprobe; load the sound driver first, or leave --recorder off',
        });
      else skipped.push(`${RECORDER_GROUP}:${RECORDER_EVENT} (${choice.reason})`);
    } else {
      skipped.push(`${RECORDER_GROUP}:${RECORDER_EVENT} (no kprobe_events on this kernel)`);
    }
    const p = recorderPaths(where.dir);
    assertNoLiveSession(options.journalDir, [p.instance]);
    removeLeftover(p);

    const j = SettingsJournal.open(
      sessionPartJournalFile(options.journalDir, process.pid, RECORDER_JOURNAL_PART),
      currentOwner(options.command ?? 'session --recorder on', true, options.toolVersion),
      { io },
    );
    journal = j;
    process.once('exit', onExit);

    // 1. The probe (journal first: a kill -9 between the two leaves a harmless removal).
    let probe: string | null = null;
    if (point) {
      probe = recorderKprobeDefinition(point, options.arch ?? process.arch);
      j.record(p.kprobeEvents, recorderKprobeRemoval(), 'append');
      try {
        io.append!(p.kprobeEvents, `${probe}\n`);
      } catch (err) {
        j.forget([p.kprobeEvents]);
        throw fail(p.kprobeEvents, err);
      }
    }
    // 2. The instance: its buffer, clock, options and cpumask vanish with it.
    j.record(p.instance, '', 'rmdir');
    try {
      fs.mkdir(p.instance);
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') {
        j.forget([p.instance]);
        throw fail(p.instance, err);
      }
    }
    const tryWrite = (path: string, value: string, what: string): boolean => {
      try {
        io.write(path, value);
        return true;
      } catch (err) {
        warnings.push(`could not set ${what}: ${errorMessage(err)}`);
        return false;
      }
    };
    const bufferKb = options.bufferKb ?? RECORDER_BUFFER_KB;
    tryWrite(p.bufferSizeKb, String(bufferKb), 'the recorder buffer size');
    // mono: the clock the playback engine stamps its xruns with.
    tryWrite(p.traceClock, 'mono', 'the recorder trace_clock');
    // sym-offset: stack frames as `func+0x5d/0x250 [module]`, like the kprobe backend's.
    tryWrite(p.symOffset, '1', 'the recorder options/sym-offset');
    const cpus = options.cpus && options.cpus.length > 0 ? [...options.cpus] : null;
    if (cpus && !tryWrite(p.cpumask, cpuMaskHex(cpus), 'the recorder tracing_cpumask'))
      warnings.push('recording every CPU');

    // 3. Events on (each optional: what the kernel lacks is skipped and said).
    const wanted: RecorderEventName[] = [...RECORDER_EVENTS];
    if (options.osnoise) {
      let names: string[] = [];
      try {
        names = readOsnoiseEvents(p.eventsDir);
      } catch {
        skipped.push(`${OSNOISE_SYSTEM}:* (the kernel has no osnoise tracer)`);
      }
      for (const event of names) wanted.push({ system: OSNOISE_SYSTEM, event });
    }
    if (point) wanted.push(RECORDER_XRUN_EVENT);
    const events: string[] = [];
    for (const e of wanted) {
      if (e.onlyWithout && events.includes(e.onlyWithout)) continue;
      const enable = p.enable(e);
      if (!exists(enable)) {
        if (e === RECORDER_XRUN_EVENT) throw fail(enable, errnoWith('ENOENT'));
        skipped.push(`${eventLabel(e)} (not in this kernel)`);
        continue;
      }
      j.record(enable, '0');
      try {
        io.write(enable, '1');
        events.push(eventLabel(e));
      } catch (err) {
        j.forget([enable]);
        if (e === RECORDER_XRUN_EVENT) throw fail(enable, err);
        skipped.push(`${eventLabel(e)} (${causeErrno(err) ?? errorMessage(err)})`);
      }
    }
    // 4. Triggers, undone first: a stack at every xrun, and at the card's interrupts.
    if (point) {
      if (point.filter) {
        try {
          io.write(p.filter(RECORDER_XRUN_EVENT), point.filter);
        } catch (err) {
          throw fail(p.filter(RECORDER_XRUN_EVENT), err);
        }
      }
      const trigger = p.trigger(RECORDER_XRUN_EVENT);
      j.record(trigger, '!stacktrace', 'append');
      try {
        io.append!(trigger, stacktraceTrigger(point));
      } catch (err) {
        throw fail(trigger, err);
      }
    }
    let irqs: SoundIrq[] = [];
    try {
      irqs = parseSoundIrqs(readFileSync(join(procRoot, 'interrupts'), 'utf8'));
    } catch {
      warnings.push('could not read /proc/interrupts: no stack at the sound card’s interrupts');
    }
    const irqEntry = RECORDER_EVENTS[3]!;
    const irqLine = irqStacktraceTrigger(irqs);
    if (irqLine && events.includes(eventLabel(irqEntry))) {
      const trigger = p.trigger(irqEntry);
      j.record(trigger, '!stacktrace', 'append');
      try {
        io.append!(trigger, irqLine);
      } catch (err) {
        j.forget([trigger]);
        irqs = [];
        warnings.push(
          `the kernel refused the stack trigger at the sound card’s interrupts: ${errorMessage(err)}`,
        );
      }
    } else irqs = [];
    // 5. The pipe, read non-blocking.
    try {
      fd = fs.openPipe(p.tracePipe);
    } catch (err) {
      throw fail(p.tracePipe, err);
    }
    return {
      tracefs: where.dir,
      instance: p.instance,
      events,
      skipped,
      probe,
      point,
      irqs,
      bufferKb,
      cpus,
    };
  };

  // An instance or probe left by a run whose journal is gone (e.g. a wiped /var/lib): removed in
  // the order the kernel accepts. Nothing here belongs to a live run (checked just before).
  const removeLeftover = (p: ReturnType<typeof recorderPaths>): void => {
    let defined = false;
    try {
      defined = io
        .read(p.kprobeEvents)
        .split('\n')
        .some((l) => l.startsWith(`p:${RECORDER_GROUP}/${RECORDER_EVENT} `));
    } catch {
      defined = false;
    }
    const instance = exists(p.bufferSizeKb);
    if (!defined && !instance) return;
    const steps: [string, () => void][] = [];
    if (instance) {
      for (const e of [RECORDER_XRUN_EVENT, RECORDER_EVENTS[3]!])
        steps.push([
          `untrigger ${eventLabel(e)}`,
          () => exists(p.trigger(e)) && io.append!(p.trigger(e), '!stacktrace'),
        ]);
      for (const e of [RECORDER_XRUN_EVENT, ...RECORDER_EVENTS])
        steps.push([
          `disable ${eventLabel(e)}`,
          () => exists(p.enable(e)) && io.write(p.enable(e), '0'),
        ]);
      steps.push(['remove instance', () => io.removeDir!(p.instance)]);
    }
    if (defined)
      steps.push(['remove probe', () => io.append!(p.kprobeEvents, recorderKprobeRemoval())]);
    for (const [what, step] of steps) {
      try {
        step();
      } catch (err) {
        warnings.push(`leftover flight recorder: ${what} failed: ${errorMessage(err)}`);
      }
    }
    warnings.push('removed a flight recorder instance or probe left by an earlier run');
  };

  return {
    get setup() {
      return setup;
    },
    counts,
    warnings,
    get restoreReport() {
      return restoreReport;
    },
    async start() {
      try {
        setup = install();
      } catch (err) {
        teardown();
        throw err;
      }
      for (const s of setup.skipped) warnings.push(`flight recorder: skipped ${s}`);
      loop = run();
      return setup;
    },
    async close() {
      if (closed) return;
      if (setup && journal) stopRecording(setup);
      closed = true;
      await loop?.catch(() => undefined);
      const report = teardown();
      for (const f of report?.failed ?? [])
        warnings.push(
          `could not restore ${f.path} (${f.value}): ${f.error}; run "xrunhunt debug restore"`,
        );
    },
  };
}

/** CLOCK_MONOTONIC in seconds: the instance's trace_clock `mono`. */
function monoSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

/** now − the newest event line's time in a batch (seconds), null when it has no event line. */
export function readerLag(lines: readonly string[], nowSeconds: number): number | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const head = parseTraceLineHead(lines[i]!);
    if (head) return Math.max(0, nowSeconds - head.ts);
  }
  return null;
}

/** An errno-carrying error for a file the kernel does not have. */
function errnoWith(code: string): Error {
  return Object.assign(new Error(code), { code });
}

/** The event names under events/osnoise of the instance (throws when the system is absent). */
function readOsnoiseEvents(eventsDir: string): string[] {
  return readdirSync(join(eventsDir, OSNOISE_SYSTEM), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
}
