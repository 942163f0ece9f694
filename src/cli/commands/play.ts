// `xrunhunt play`: the playback engine alone — open a device at a tiny buffer, play from a
// SCHED_FIFO worker, report every xrun with trustworthy timing and the headroom histogram.
import { existsSync } from 'node:fs';
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { UsageError } from '../../errors.js';
import { parseDuration, parseInteger } from '../../units.js';
import { AlsaError } from '../../alsa/alsa-error.js';
import { startPlayback } from '../../playback/start-playback.js';
import { parseStallPlan, stallPlanSpanMs } from '../../playback/stall-plan.js';
import type { PlaybackOptions, SignalKind } from '../../playback/types.js';
import { parseWakeupMode } from '../../playback/wakeup-mode.js';
import { WAKEUP_OPTION } from '../wakeup-option.js';
import {
  formatStarted,
  formatStatsLine,
  formatSummary,
  formatXrunLine,
  summaryToJson,
} from '../../playback/format-report.js';

const NO_CARD_HINT =
  'this kernel has no sound support (/proc/asound is missing): play through JACK instead ' +
  '("bash scripts/jack-dummy.sh start", then --device plug:jack), or run inside the lab VM ("xrunhunt lab")';

export default defineCommand({
  name: 'play',
  summary: 'play through libasound from a real-time thread and report every xrun with its timing',
  usage: 'play [options]',
  description: `
Opens DEVICE for playback with the requested rate, format, period and buffer (the device may
grant other values: the report says what it granted), raises the writer thread to SCHED_FIFO,
and plays silence or a sine. Every underrun is reported with its CLOCK_MONOTONIC time (the clock
of dmesg timestamps), how long the output was silent, and the frames written so far. Per period
it measures the headroom (audio still queued when the writer wrote: the margin to an xrun) and
the write-call time.

--wakeup timer runs the writer like PipeWire's default desktop mode: no period interrupts
where the device can run without them (HDA and most PCI cards), the writer sleeps on its own
CLOCK_MONOTONIC timer until a period is free, then asks the kernel for the position
(snd_pcm_delay) and writes. The kernel then detects an underrun inside that call, in the
player's process context, not in the period interrupt. A device that cannot turn period
interrupts off (plug:jack, snd-dummy) keeps them: the report's "wakeup" says so.

--inject-stall makes the writer sleep on purpose: every stall longer than the buffer time must
show up as exactly one xrun (a self-test of the whole chain on this machine).
Exit code: 0 no xruns, 2 xruns, 1 error.`,
  examples: [
    'xrunhunt play --device plug:jack --duration 20s',
    'xrunhunt play --device hw:CARD=Dummy,DEV=0 --period 64 --periods 2 --json',
    'xrunhunt play --device plug:jack --inject-stall 20x5 --duration 7s',
    'xrunhunt play --device hw:0,0 --wakeup timer --period 256 --json',
  ],
  options: {
    device: {
      type: 'string',
      short: 'D',
      valueName: 'NAME',
      default: 'default',
      description: 'ALSA playback device (see "aplay -L"; plug:jack for JACK)',
    },
    rate: { type: 'string', valueName: 'HZ', default: '48000', description: 'sample rate in Hz' },
    channels: { type: 'string', valueName: 'N', default: '2', description: 'channels' },
    'sample-format': {
      type: 'string',
      short: 'f',
      deprecatedAliases: ['format'],
      valueName: 'FORMAT',
      default: 'S16_LE',
      description: 'sample format (S16_LE, S32_LE, FLOAT_LE, ...)',
    },
    period: {
      type: 'string',
      valueName: 'FRAMES',
      default: '64',
      description: 'period size in frames',
    },
    periods: {
      type: 'string',
      valueName: 'N',
      default: '2',
      description: 'periods per buffer (buffer = period × N frames)',
    },
    duration: {
      type: 'string',
      short: 'd',
      valueName: 'DURATION',
      default: '10s',
      description: 'play for DURATION (500ms, 10s, 2m; 0 = until Ctrl-C)',
    },
    signal: {
      type: 'string',
      choices: ['silence', 'sine'],
      valueName: 'KIND',
      default: 'silence',
      description: 'what to play: silence or sine (440 Hz, -20 dBFS)',
    },
    'rt-priority': {
      type: 'string',
      short: 'p',
      valueName: 'N',
      default: '70',
      description: 'SCHED_FIFO priority of the writer thread, 1-99 (0 = normal scheduling)',
    },
    cpu: {
      type: 'string',
      short: 'a',
      valueName: 'N',
      description: 'pin the writer thread to CPU N',
    },
    wakeup: WAKEUP_OPTION,
    'inject-stall': {
      type: 'string',
      valueName: 'MS[xCOUNT]',
      description:
        'writer sleeps MS milliseconds, COUNT times, 1 s apart after 1 s warm-up (self-test)',
    },
    json: { type: 'boolean', description: 'print one JSON document on stdout' },
  },
  async run(ctx) {
    const v = ctx.values;
    const signal = v.signal as SignalKind;
    if (signal !== 'silence' && signal !== 'sine') {
      throw new UsageError(`invalid --signal "${v.signal}": expected silence or sine`);
    }
    const wakeup = parseWakeupMode(v.wakeup);
    const durationMs = parseDuration(v.duration, '--duration');
    const injectStall = v['inject-stall'] === undefined ? null : parseStallPlan(v['inject-stall']);
    if (injectStall && durationMs > 0 && durationMs < stallPlanSpanMs(injectStall)) {
      throw new UsageError(
        `--inject-stall ${v['inject-stall']} needs at least ${stallPlanSpanMs(injectStall) / 1000}s of playback, got --duration ${v.duration}`,
        { hint: `use --duration ${Math.ceil(stallPlanSpanMs(injectStall) / 1000)}s or more` },
      );
    }
    const options: PlaybackOptions = {
      device: v.device,
      rate: parseInteger(v.rate, '--rate', 1000, 768_000),
      channels: parseInteger(v.channels, '--channels', 1, 64),
      format: v['sample-format'].toUpperCase(),
      periodFrames: parseInteger(v.period, '--period', 16, 1 << 20),
      periods: parseInteger(v.periods, '--periods', 2, 64),
      durationMs: durationMs === 0 ? null : durationMs,
      signal,
      rtPriority: parseInteger(v['rt-priority'], '--rt-priority', 0, 99),
      cpu: v.cpu === undefined ? null : parseInteger(v.cpu, '--cpu', 0, 1023),
      injectStall,
      wakeup,
    };
    const { stderr } = ctx.io;
    const live = ctx.io.stderrIsTTY && !v.json;
    const warnings: string[] = [];
    if (options.device === 'null') {
      warnings.push(
        'the null device never paces and never underruns: use it to test the binding, not timing',
      );
    }
    const handle = startPlayback(options, { signal: ctx.signal });
    let pcmType: string | null = null;
    let xrunCount = 0;
    handle.on('started', (e) => {
      pcmType = e.pcmType;
      if (!v.json) stderr.write(`${formatStarted(e)}\n`);
    });
    handle.on('warning', (w) => {
      warnings.push(w.message);
      stderr.write(`xrunhunt: warning: ${w.message}\n`);
    });
    handle.on('stats', (s) => {
      if (live) stderr.write(`${formatStatsLine(s)}\n`);
    });
    handle.on('xrun', (x) => {
      if (live) stderr.write(`  xrun ${formatXrunLine(x, xrunCount)}\n`);
      xrunCount++;
    });
    for (const w of warnings) stderr.write(`xrunhunt: warning: ${w}\n`);
    let summary;
    try {
      summary = await handle.done;
    } catch (err) {
      if (err instanceof AlsaError && err.op === 'snd_pcm_open' && !existsSync('/proc/asound')) {
        throw new AlsaError(
          {
            op: err.op,
            errno: err.errno,
            alsaMessage: err.alsaMessage,
            device: err.device,
            hint: NO_CARD_HINT,
          },
          `cannot open playback device "${err.device}": ${err.alsaMessage} — this machine has no sound card`,
        );
      }
      throw err;
    }
    if (v.json) writeJson(ctx.io.stdout, summaryToJson(summary, { warnings, pcmType }));
    else ctx.io.stdout.write(formatSummary(summary));
    if (summary.error) {
      stderr.write(`xrunhunt: error: ${summary.error.message}\n`);
      return 1;
    }
    return summary.xruns.length > 0 ? 2 : 0;
  },
});
