// Command-line values → a checked session plan. Every bad value is a UsageError naming the
// option and what was expected, raised before anything is started or changed.
import { join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseDuration, parseInteger } from '../units.js';
import { parsePhasePlan, type Phase } from '../load/index.js';
import { parseStallPlan, type StallPlan } from '../playback/index.js';
import type { SessionParams } from './events.js';
import { parseWakeupMode } from '../playback/wakeup-mode.js';
import { AUTO_PERIOD_CANDIDATES } from './period-choice.js';

/** The phase plan when none is given: a baseline, then the two loads that break audio most
 * often (buffered writes with writeback, and metadata storms), 50 s in all. */
export const DEFAULT_PHASES = 'idle:10s,write:20s,metadata:20s';
/** 128 frames × 2 at 48 kHz = 5.3 ms: small enough to show trouble on most machines. */
export const DEFAULT_PERIOD = '128';
export const DEFAULT_PERIODS = '2';
export const DEFAULT_RATE = '48000';
/** Priority 80 is what JACK and PipeWire use for their audio threads. */
export const DEFAULT_RT_PRIORITY = '80';

export interface RawSessionValues {
  device: string;
  period: string;
  periods: string;
  rate: string;
  phases: string;
  duration?: string | undefined;
  mask: string;
  'load-dir'?: string | undefined;
  out?: string | undefined;
  'max-xruns'?: string | undefined;
  'until-xruns'?: string | undefined;
  'inject-stall'?: string | undefined;
  'rt-priority': string;
  cpu?: string | undefined;
  capture: string;
  pcm?: string | undefined;
  'no-scrub': boolean;
  wakeup?: string | undefined;
}

export interface SessionPlan {
  params: SessionParams;
  phases: Phase[];
  injectStall: StallPlan | null;
  /** `--period auto`: params.periodFrames is provisional until the idle probe chose one. */
  autoPeriod?: boolean;
}

/**
 * The name of a run's own folder, stamped with its start: `xrunhunt-20261129-194501`, or with
 * a kind (`xrunhunt-watch-…`, `-try-`, `-lab-`) so runs of different commands tell apart.
 */
export function runFolderName(now: Date, kind?: string): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return kind === undefined ? `xrunhunt-${stamp}` : `xrunhunt-${kind}-${stamp}`;
}

/** The default bundle folder: `CWD/xrunhunt-20261129-194501`. */
export function defaultOutDir(cwd: string, now: Date): string {
  return join(cwd, runFolderName(now));
}

/** Checks and converts session options (pure apart from path resolution against `cwd`). */
export function parseSessionValues(
  v: RawSessionValues,
  ctx: { cwd: string; tmpdir: string; outDir: string | null },
): SessionPlan {
  const autoPeriod = v.period === 'auto';
  const periodFrames = autoPeriod
    ? AUTO_PERIOD_CANDIDATES[0]!
    : parseInteger(v.period, '--period (frames, or auto)', 16, 1 << 20);
  const periods = parseInteger(v.periods, '--periods', 2, 1024);
  const rateHz = parseInteger(v.rate, '--rate (Hz)', 4000, 768_000);
  const mask = parseInteger(v.mask, '--mask', 0, 0xffff);
  const rtPriority = parseInteger(v['rt-priority'], '--rt-priority', 0, 99);
  const cpu = v.cpu === undefined ? null : parseInteger(v.cpu, '--cpu', 0, 4095);
  const maxXruns =
    v['max-xruns'] === undefined ? null : parseInteger(v['max-xruns'], '--max-xruns', 0);
  const untilXruns =
    v['until-xruns'] === undefined ? null : parseInteger(v['until-xruns'], '--until-xruns', 1);
  const durationMs = v.duration === undefined ? null : parseDuration(v.duration, '--duration');
  if (durationMs !== null && durationMs <= 0) {
    throw new UsageError(`invalid --duration "${v.duration}": expected more than 0`);
  }
  const phases = parsePhasePlan(v.phases);
  const wakeup = parseWakeupMode(v.wakeup);
  const injectStall = v['inject-stall'] === undefined ? null : parseStallPlan(v['inject-stall']);
  if (
    !['auto', 'xrun_debug', 'kmsg', 'journalctl', 'dmesg', 'kprobe', 'none'].includes(v.capture)
  ) {
    throw new UsageError(
      `invalid --capture "${v.capture}": expected auto, xrun_debug, kprobe or none (or a log source: kmsg, journalctl, dmesg)`,
    );
  }
  if (v.pcm !== undefined && !/^pcmC\d+D\d+[pc]$/.test(v.pcm)) {
    throw new UsageError(
      `invalid --pcm "${v.pcm}": expected a kernel PCM name like pcmC0D0p (see "xrunhunt debug status")`,
    );
  }
  if (v.device.trim() === '')
    throw new UsageError(
      'invalid --device "": expected an ALSA device name, e.g. hw:0,0 or plug:jack',
    );
  return {
    phases,
    injectStall,
    autoPeriod,
    params: {
      device: v.device,
      rateHz,
      periodFrames,
      periods,
      phasePlan: v.phases,
      durationMs,
      mask,
      capture: v.capture,
      pcm: v.pcm ?? null,
      loadDir: resolve(ctx.cwd, v['load-dir'] ?? ctx.tmpdir),
      outDir: ctx.outDir,
      maxXruns,
      untilXruns,
      rtPriority: rtPriority === 0 ? null : rtPriority,
      cpu,
      injectStall: injectStall !== null,
      scrub: !v['no-scrub'],
      wakeup,
    },
  };
}
