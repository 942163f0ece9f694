// The one contract every `try` knob follows: a knob reads the current value, validates the
// asked one and says what it changes (resolve → KnobChange); the change is applied and put
// back by the try probe (../knob-probe.ts) through the settings journal, so every knob is
// restored the same way after each B round, on Ctrl-C, and after kill -9 at the next start.
import type { SettingFileIo } from '../../proc/index.js';
import type { ThreadSched } from '../../proc/journal-sched.js';

/** Where a knob finds the machine: the roots (fake trees in tests) and the file writer. */
export interface KnobEnv {
  procRoot: string;
  sysRoot: string;
  devRoot: string;
  io: SettingFileIo;
}

/**
 * One setting file a change touches, in order; journaled ones are restored newest first.
 * `value` null: only journaled (its original is what restore writes back). `journal` false:
 * written but not journaled, because restoring another entry puts it back as a kernel side
 * effect (restoring vm.dirty_ratio zeroes vm.dirty_bytes, which refuses a 0 of its own).
 */
export interface SettingWrite {
  path: string;
  value: string | null;
  journal: boolean;
  /** The file's text → the value restore writes back (e.g. `[mq-deadline] none` → `mq-deadline`). */
  normalize?: (text: string) => string;
}

/** A request held open for the B rounds and dropped by the kernel when the file closes (even on kill -9). */
export interface HeldRequest {
  path: string;
  /** The bytes written once after opening. */
  bytes: Buffer;
}

/** A thread whose scheduling a change sets (journaled with kind 'sched', restored onto it only). */
export interface ThreadSchedWrite {
  /** The thread's /proc/PID folder (the journal entry's path). */
  path: string;
  /** The thread as it is now: the original restore puts back. */
  thread: ThreadSched;
  policy: number;
  priority: number;
}

/** What one KNOB=VALUE changes for the B rounds. */
export interface KnobChange {
  /** KNOB=VALUE as it is normalized (`scheduler.sda=mq-deadline`). */
  spec: string;
  /** For sentences: "the I/O scheduler of sda". */
  what: string;
  from: string;
  to: string;
  writes: SettingWrite[];
  hold?: HeldRequest;
  threads?: ThreadSchedWrite[];
  /** Changes to the player of the B rounds (no machine setting). */
  player?: { rtPriority?: number; cpu?: number };
  /** Changes to the load generator of the B rounds (no machine setting). */
  load?: { cpus: number[] };
}

/** A knob `try` can change. */
export interface KnobDefinition {
  /** The key pattern as the help shows it (`scheduler.DEV`). */
  key: string;
  /** A complete example (`scheduler.sda=mq-deadline`). */
  example: string;
  /** What it changes and why it can matter for audio, one sentence. */
  explain: string;
  matches(key: string): boolean;
  /** Reads the current value and validates `value`; throws UsageError/XrunhuntError. */
  resolve(key: string, value: string, env: KnobEnv): KnobChange;
}

/** The value between square brackets of a sysfs choice file (`mq-deadline [none]` → `none`). */
export function bracketedChoice(text: string): string {
  return /\[([^\]]+)\]/.exec(text)?.[1] ?? text.trim();
}

/** Every choice of a sysfs choice file, brackets removed. */
export function choices(text: string): string[] {
  return text
    .trim()
    .split(/\s+/)
    .map((c) => c.replace(/^\[|\]$/g, ''))
    .filter((c) => c !== '');
}

/** Trims the newline procfs and sysfs put after a value. */
export const trimmed = (text: string): string => text.trim();
