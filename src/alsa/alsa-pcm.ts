// The real PcmBinding: opens a PCM through libasound, negotiates parameters with the `_near`
// calls, reports what was granted and which hardware PCM (if any) sits underneath.
import type { Handle, Asound, Timespec } from './libasound.js';
import { loadAsound, takeAlsaMessages } from './libasound.js';
import { AlsaError, ERRNO } from './alsa-error.js';
import type {
  GrantedParams,
  HwPcm,
  PcmBinding,
  PcmStatus,
  WakeupGrant,
  WakeupMode,
} from './pcm-binding.js';

const SND_PCM_STREAM_PLAYBACK = 0;
const SND_PCM_NONBLOCK = 1;
const SND_PCM_ACCESS_RW_INTERLEAVED = 3;
const SND_PCM_TSTAMP_ENABLE = 1;
const SND_PCM_TSTAMP_TYPE_MONOTONIC = 1;

/** What the caller asks for; the device may grant something near it. */
export interface PcmRequest {
  rate: number;
  channels: number;
  format: string;
  periodFrames: number;
  periods: number;
  /** Who wakes the writer (default `period`); `timer` turns period interrupts off where it can. */
  wakeup?: WakeupMode;
}

const LIST_HINT =
  'list playback devices with "aplay -L" (names) and "aplay -l" (cards); without a sound card use plug:jack with a running JACK server, or "xrunhunt lab"';

const PERIOD_WAKEUP: WakeupGrant = {
  requested: 'period',
  method: 'period-interrupts',
  periodInterrupts: true,
  reason: 'the writer waits for period interrupts (snd_pcm_wait), as aplay and JACK do',
};

function timespecNs(t: Timespec): bigint {
  return BigInt(t.tv_sec) * 1_000_000_000n + BigInt(t.tv_nsec);
}

/** An open playback PCM. One thread only: libasound handles are not thread-safe. */
export class AlsaPcm implements PcmBinding {
  readonly device: string;
  readonly #lib: Asound;
  #pcm: Handle;
  #status: Handle;
  #closed = false;
  // snd_pcm_delay's out parameter, reused so the hot path allocates nothing.
  readonly #delayOut: [number] = [0];
  #wakeup: WakeupGrant = PERIOD_WAKEUP;

  private constructor(lib: Asound, pcm: Handle, device: string) {
    this.#lib = lib;
    this.#pcm = pcm;
    this.device = device;
    const s: [Handle] = [null];
    this.#check(lib.statusMalloc(s), 'snd_pcm_status_malloc');
    this.#status = s[0];
  }

  /** Opens `device` for playback (non-blocking: the engine waits with snd_pcm_wait). */
  static open(device: string, lib: Asound = loadAsound()): AlsaPcm {
    const out: [Handle] = [null];
    takeAlsaMessages();
    const rc = lib.open(out, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);
    if (rc < 0) throw openError(lib, device, rc, takeAlsaMessages());
    return new AlsaPcm(lib, out[0], device);
  }

  #check(rc: number, op: string, hint?: string): number {
    if (rc < 0) {
      throw new AlsaError({
        op,
        errno: -rc,
        alsaMessage: this.#lib.strerror(rc),
        device: this.device,
        ...(hint === undefined ? {} : { hint }),
      });
    }
    return rc;
  }

  /** Negotiates hw + sw params (interleaved, `_near` rate/period/buffer) and returns what was granted. */
  configure(req: PcmRequest): GrantedParams {
    const lib = this.#lib;
    const format = lib.formatValue(req.format);
    if (format < 0) {
      throw new AlsaError(
        {
          op: 'snd_pcm_format_value',
          errno: ERRNO.EINVAL,
          alsaMessage: 'unknown format',
          device: this.device,
        },
        `unknown sample format "${req.format}": expected an ALSA format name such as S16_LE, S32_LE, FLOAT_LE`,
      );
    }
    const hw: [Handle] = [null];
    this.#check(lib.hwParamsMalloc(hw), 'snd_pcm_hw_params_malloc');
    try {
      const p = hw[0];
      this.#check(lib.hwParamsAny(this.#pcm, p), 'snd_pcm_hw_params_any');
      this.#check(
        lib.hwSetAccess(this.#pcm, p, SND_PCM_ACCESS_RW_INTERLEAVED),
        'snd_pcm_hw_params_set_access',
      );
      this.#check(
        lib.hwSetFormat(this.#pcm, p, format),
        'snd_pcm_hw_params_set_format',
        `the device does not take ${req.format}; try --format S16_LE, or a plug: device that converts`,
      );
      this.#check(
        lib.hwSetChannelsNear(this.#pcm, p, [req.channels]),
        'snd_pcm_hw_params_set_channels_near',
      );
      this.#check(
        lib.hwSetRateNear(this.#pcm, p, [req.rate], [0]),
        'snd_pcm_hw_params_set_rate_near',
      );
      this.#check(
        lib.hwSetPeriodSizeNear(this.#pcm, p, [req.periodFrames], [0]),
        'snd_pcm_hw_params_set_period_size_near',
      );
      this.#check(
        lib.hwSetBufferSizeNear(this.#pcm, p, [req.periodFrames * req.periods]),
        'snd_pcm_hw_params_set_buffer_size_near',
      );
      this.#wakeup = this.#requestWakeup(p, req.wakeup ?? 'period');
      this.#check(lib.hwParams(this.#pcm, p), 'snd_pcm_hw_params');
      const rate: [number] = [0];
      const channels: [number] = [0];
      const fmt: [number] = [0];
      const period: [number] = [0];
      const buffer: [number] = [0];
      this.#check(lib.hwGetRate(p, rate, [0]), 'snd_pcm_hw_params_get_rate');
      this.#check(lib.hwGetChannels(p, channels), 'snd_pcm_hw_params_get_channels');
      this.#check(lib.hwGetFormat(p, fmt), 'snd_pcm_hw_params_get_format');
      this.#check(lib.hwGetPeriodSize(p, period, [0]), 'snd_pcm_hw_params_get_period_size');
      this.#check(lib.hwGetBufferSize(p, buffer), 'snd_pcm_hw_params_get_buffer_size');
      const granted: GrantedParams = {
        rate: rate[0],
        channels: channels[0],
        format: lib.formatName(fmt[0]) ?? req.format,
        periodFrames: period[0],
        bufferFrames: buffer[0],
        frameBytes: (channels[0] * lib.formatPhysicalWidth(fmt[0])) / 8,
      };
      this.#configureSw(granted, this.#wakeup);
      return granted;
    } finally {
      lib.hwParamsFree(hw[0]);
    }
  }

  /** How the device was set up for the requested wake-up mode (after configure()). */
  get wakeup(): WakeupGrant {
    return this.#wakeup;
  }

  // Timer mode, as PipeWire does it: no period interrupts where the device can run without
  // them (HDA and most PCI cards: SNDRV_PCM_INFO_NO_PERIOD_WAKEUP); else they stay and only
  // the writer's poll wake-ups go (#configureSw). Must come before snd_pcm_hw_params.
  #requestWakeup(p: Handle, mode: WakeupMode): WakeupGrant {
    if (mode === 'period') return PERIOD_WAKEUP;
    const lib = this.#lib;
    const type = this.typeName();
    if (lib.hwCanDisablePeriodWakeup(p) === 1) {
      this.#check(lib.hwSetPeriodWakeup(this.#pcm, p, 0), 'snd_pcm_hw_params_set_period_wakeup');
      return {
        requested: 'timer',
        method: 'no-period-wakeup',
        periodInterrupts: false,
        reason: `the device runs without period interrupts (snd_pcm_hw_params_set_period_wakeup 0); the writer sleeps on CLOCK_MONOTONIC and the kernel detects underruns in its snd_pcm_delay call`,
      };
    }
    const hw = this.hwPcm();
    const why = hw
      ? `the driver of ${hw.kernelName} (${hw.id}) does not offer it (no SNDRV_PCM_INFO_NO_PERIOD_WAKEUP; snd-dummy is one such)`
      : `it has no kernel PCM underneath (a plugin such as plug:jack, or null)`;
    return {
      requested: 'timer',
      method: 'avail-min-buffer',
      periodInterrupts: true,
      reason: `the ${type} device cannot turn period interrupts off: ${why}; they stay, and underruns may still be detected there — the writer ignores them (period_event 0, avail_min = buffer) and sleeps on its own timer`,
    };
  }

  // Start when the buffer is full (the engine fills it first), wake when a period is free
  // (timer mode: when the whole buffer is, i.e. never in practice, the writer does not poll),
  // and timestamp status in CLOCK_MONOTONIC so trigger times compare with process.hrtime.
  #configureSw(granted: GrantedParams, wakeup: WakeupGrant): void {
    const lib = this.#lib;
    const sw: [Handle] = [null];
    this.#check(lib.swParamsMalloc(sw), 'snd_pcm_sw_params_malloc');
    try {
      const p = sw[0];
      this.#check(lib.swParamsCurrent(this.#pcm, p), 'snd_pcm_sw_params_current');
      this.#check(
        lib.swSetStartThreshold(this.#pcm, p, granted.bufferFrames),
        'snd_pcm_sw_params_set_start_threshold',
      );
      this.#check(
        lib.swSetAvailMin(
          this.#pcm,
          p,
          wakeup.requested === 'timer' ? granted.bufferFrames : granted.periodFrames,
        ),
        'snd_pcm_sw_params_set_avail_min',
      );
      if (wakeup.requested === 'timer') {
        this.#check(lib.swSetPeriodEvent(this.#pcm, p, 0), 'snd_pcm_sw_params_set_period_event');
      }
      this.#check(
        lib.swSetTstampMode(this.#pcm, p, SND_PCM_TSTAMP_ENABLE),
        'snd_pcm_sw_params_set_tstamp_mode',
      );
      // Plugins without timestamp-type support reject this; CLOCK_MONOTONIC is then not guaranteed.
      lib.swSetTstampType(this.#pcm, p, SND_PCM_TSTAMP_TYPE_MONOTONIC);
      this.#check(lib.swParams(this.#pcm, p), 'snd_pcm_sw_params');
    } finally {
      lib.swParamsFree(sw[0]);
    }
  }

  /** The hardware PCM under this one (plugins forward snd_pcm_info to their slave); null for JACK/null. */
  hwPcm(): HwPcm | null {
    const lib = this.#lib;
    const out: [Handle] = [null];
    if (lib.infoMalloc(out) < 0) return null;
    try {
      if (lib.info(this.#pcm, out[0]) < 0) return null;
      const card = lib.infoGetCard(out[0]);
      if (card < 0) return null;
      const device = lib.infoGetDevice(out[0]);
      const stream = lib.infoGetStream(out[0]) === 0 ? 'p' : 'c';
      return {
        card,
        device,
        subdevice: lib.infoGetSubdevice(out[0]),
        stream,
        kernelName: `pcmC${card}D${device}${stream}`,
        name: lib.infoGetName(out[0]),
        id: lib.infoGetId(out[0]),
      };
    } finally {
      lib.infoFree(out[0]);
    }
  }

  /** libasound's PCM type name (`hw`, `plug`, `ioplug`, `null`, ...). */
  typeName(): string {
    return this.#lib.typeName(this.#lib.pcmType(this.#pcm));
  }

  availUpdate(): number {
    return this.#lib.availUpdate(this.#pcm);
  }
  delay(): number {
    const out = this.#delayOut;
    const rc = this.#lib.delay(this.#pcm, out);
    if (rc < 0) return rc;
    const d = out[0];
    return d > 0 ? d : 0;
  }
  writei(buffer: Buffer, frames: number): number {
    return this.#lib.writei(this.#pcm, buffer, frames);
  }
  wait(timeoutMs: number): number {
    return this.#lib.wait(this.#pcm, timeoutMs);
  }
  status(): PcmStatus | number {
    const lib = this.#lib;
    const rc = lib.status(this.#pcm, this.#status);
    if (rc < 0) return rc;
    const trig: Timespec = { tv_sec: 0, tv_nsec: 0 };
    const now: Timespec = { tv_sec: 0, tv_nsec: 0 };
    lib.statusGetTriggerHtstamp(this.#status, trig);
    lib.statusGetHtstamp(this.#status, now);
    return {
      state: lib.statusGetState(this.#status),
      triggerNs: timespecNs(trig),
      nowNs: timespecNs(now),
      avail: lib.statusGetAvail(this.#status),
      delay: lib.statusGetDelay(this.#status),
    };
  }
  recover(err: number): number {
    return this.#lib.recover(this.#pcm, err, 1);
  }
  resume(): number {
    return this.#lib.resume(this.#pcm);
  }
  prepare(): number {
    return this.#lib.prepare(this.#pcm);
  }
  start(): number {
    return this.#lib.start(this.#pcm);
  }
  state(): number {
    return this.#lib.state(this.#pcm);
  }
  drop(): number {
    return this.#lib.drop(this.#pcm);
  }
  /** Closes the PCM and frees the status; safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#lib.statusFree(this.#status);
    this.#lib.close(this.#pcm);
  }
  strerror(err: number): string {
    return this.#lib.strerror(err);
  }
}

// A failed open says which device, why, and how to find one that exists.
function openError(lib: Asound, device: string, rc: number, said: string[]): AlsaError {
  const errno = -rc;
  // libasound's last own line is the most specific ("Unknown PCM nosuch").
  const last = said.at(-1);
  const alsaMessage = last
    ? `${lib.strerror(rc)} (libasound: ${last.replace(/^[^:]*: /, '')})`
    : lib.strerror(rc);
  const init = { op: 'snd_pcm_open', errno, alsaMessage, device, hint: LIST_HINT };
  if (errno === ERRNO.ENOENT || errno === ERRNO.ENODEV) {
    const noCards = device === 'default' || /^(plug)?hw:|^(plug)?hw$|^sysdefault/.test(device);
    return new AlsaError(
      init,
      noCards
        ? `cannot open playback device "${device}": ${alsaMessage} — this machine may have no sound card (is /proc/asound/cards empty?)`
        : `cannot open playback device "${device}": ${alsaMessage}`,
    );
  }
  if (errno === ERRNO.EBUSY) {
    return new AlsaError(
      {
        ...init,
        hint: 'another program holds it (PipeWire, PulseAudio, JACK): stop it, or play through it',
      },
      `playback device "${device}" is busy`,
    );
  }
  return new AlsaError(init, `cannot open playback device "${device}": ${alsaMessage}`);
}
