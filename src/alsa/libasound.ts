// The FFI boundary: loads libasound.so.2 through koffi and declares every symbol xrunhunt
// calls, once, with C prototypes. Nothing outside src/alsa imports koffi. Calls are
// synchronous (koffi's async mode has a 2.7 ms p99 round trip: unfit for audio).
import koffi from 'koffi';
import type { LibraryHandle } from 'koffi';
import { errorMessage, XrunhuntError } from '../errors.js';

/** Opaque handles as koffi hands them over; only this folder looks inside. */
export type Handle = unknown;

/** A `struct timespec` read back from an out parameter. */
export interface Timespec {
  tv_sec: number;
  tv_nsec: number;
}

/** Typed view of the libasound functions xrunhunt uses (snd_pcm_* names without the prefix). */
export interface Asound {
  open(out: [Handle], name: string, stream: number, mode: number): number;
  close(pcm: Handle): number;
  strerror(err: number): string;
  hwParamsMalloc(out: [Handle]): number;
  hwParamsFree(p: Handle): void;
  hwParamsAny(pcm: Handle, p: Handle): number;
  hwSetAccess(pcm: Handle, p: Handle, access: number): number;
  hwSetFormat(pcm: Handle, p: Handle, format: number): number;
  hwSetChannelsNear(pcm: Handle, p: Handle, val: [number]): number;
  hwSetRateNear(pcm: Handle, p: Handle, val: [number], dir: [number]): number;
  hwSetPeriodSizeNear(pcm: Handle, p: Handle, val: [number], dir: [number]): number;
  hwSetBufferSizeNear(pcm: Handle, p: Handle, val: [number]): number;
  hwSetRateResample(pcm: Handle, p: Handle, val: number): number;
  /** 1 when the device can run without period interrupts (SNDRV_PCM_INFO_NO_PERIOD_WAKEUP). */
  hwCanDisablePeriodWakeup(p: Handle): number;
  hwSetPeriodWakeup(pcm: Handle, p: Handle, val: number): number;
  hwParams(pcm: Handle, p: Handle): number;
  hwGetRate(p: Handle, val: [number], dir: [number]): number;
  hwGetChannels(p: Handle, val: [number]): number;
  hwGetFormat(p: Handle, val: [number]): number;
  hwGetPeriodSize(p: Handle, val: [number], dir: [number]): number;
  hwGetBufferSize(p: Handle, val: [number]): number;
  swParamsMalloc(out: [Handle]): number;
  swParamsFree(p: Handle): void;
  swParamsCurrent(pcm: Handle, p: Handle): number;
  swSetStartThreshold(pcm: Handle, p: Handle, frames: number): number;
  swSetAvailMin(pcm: Handle, p: Handle, frames: number): number;
  swSetPeriodEvent(pcm: Handle, p: Handle, val: number): number;
  swSetTstampMode(pcm: Handle, p: Handle, mode: number): number;
  swSetTstampType(pcm: Handle, p: Handle, type: number): number;
  swParams(pcm: Handle, p: Handle): number;
  prepare(pcm: Handle): number;
  start(pcm: Handle): number;
  drop(pcm: Handle): number;
  drain(pcm: Handle): number;
  resume(pcm: Handle): number;
  recover(pcm: Handle, err: number, silent: number): number;
  nonblock(pcm: Handle, nonblock: number): number;
  writei(pcm: Handle, buffer: Buffer, frames: number): number;
  avail(pcm: Handle): number;
  availUpdate(pcm: Handle): number;
  delay(pcm: Handle, out: [number]): number;
  wait(pcm: Handle, timeoutMs: number): number;
  state(pcm: Handle): number;
  statusMalloc(out: [Handle]): number;
  statusFree(p: Handle): void;
  status(pcm: Handle, s: Handle): number;
  statusGetState(s: Handle): number;
  statusGetTriggerHtstamp(s: Handle, out: Timespec): void;
  statusGetHtstamp(s: Handle, out: Timespec): void;
  statusGetAvail(s: Handle): number;
  statusGetDelay(s: Handle): number;
  infoMalloc(out: [Handle]): number;
  infoFree(p: Handle): void;
  info(pcm: Handle, i: Handle): number;
  infoGetCard(i: Handle): number;
  infoGetDevice(i: Handle): number;
  infoGetSubdevice(i: Handle): number;
  infoGetId(i: Handle): string;
  infoGetName(i: Handle): string;
  infoGetStream(i: Handle): number;
  pcmName(pcm: Handle): string;
  pcmType(pcm: Handle): number;
  typeName(type: number): string;
  formatValue(name: string): number;
  formatName(format: number): string | null;
  formatPhysicalWidth(format: number): number;
}

let cached: Asound | undefined;

// libasound prints its own diagnostics to stderr ("ALSA lib pcm.c:2666:(...) Unknown PCM
// default"). A thread-local handler (snd_lib_error_set_local, va_list formatted with libc's
// vsnprintf) keeps them instead, so errors can quote them and stderr stays ours.
const MAX_KEPT_MESSAGES = 16;
const MESSAGE_BYTES = 512;
const libMessages: string[] = [];
let errorHandler: unknown;

/** Returns and clears libasound's own diagnostics since the last call (this thread only). */
export function takeAlsaMessages(): string[] {
  return libMessages.splice(0, libMessages.length);
}

function installErrorHandler(lib: LibraryHandle): void {
  try {
    const libc = koffi.load('libc.so.6');
    const proto = koffi.proto(
      'void xrh_alsa_error_handler(const char *file, int line, const char *func, int err, const char *fmt, void *ap)',
    );
    const setLocal = lib.func('void *snd_lib_error_set_local(xrh_alsa_error_handler *func)');
    const vsnprintf = libc.func(
      'int vsnprintf(_Out_ uint8_t *str, size_t size, const char *format, void *ap)',
    );
    const buf = Buffer.alloc(MESSAGE_BYTES);
    errorHandler = koffi.register(
      (_file: string, _line: number, func: string, _err: number, fmt: string, ap: unknown) => {
        const n = vsnprintf(buf, MESSAGE_BYTES, fmt, ap) as number;
        const text = buf.subarray(0, Math.max(0, Math.min(n, MESSAGE_BYTES - 1))).toString();
        libMessages.push(`${func}: ${text}`);
        if (libMessages.length > MAX_KEPT_MESSAGES) libMessages.shift();
      },
      koffi.pointer(proto),
    );
    setLocal(errorHandler);
  } catch {
    // Older libasound without snd_lib_error_set_local: its messages go to stderr as before.
  }
}

/** Loads libasound once per thread; a missing library is one clear line with the package to install. */
export function loadAsound(): Asound {
  if (cached) return cached;
  let lib: LibraryHandle;
  try {
    lib = koffi.load('libasound.so.2');
  } catch (err) {
    throw new XrunhuntError(
      'not-found',
      `cannot load libasound.so.2 (the ALSA library): ${errorMessage(err)}`,
      { hint: 'install it: apt-get install libasound2 (Fedora: dnf install alsa-lib)', cause: err },
    );
  }
  installErrorHandler(lib);
  koffi.opaque('snd_pcm_t');
  koffi.opaque('snd_pcm_hw_params_t');
  koffi.opaque('snd_pcm_sw_params_t');
  koffi.opaque('snd_pcm_status_t');
  koffi.opaque('snd_pcm_info_t');
  koffi.struct('xrh_timespec', { tv_sec: 'long', tv_nsec: 'long' });
  const f = (proto: string): ((...args: never[]) => never) =>
    lib.func(proto) as unknown as (...args: never[]) => never;
  // snd_pcm_uframes_t is unsigned long, snd_pcm_sframes_t is long (64-bit here).
  cached = {
    open: f('int snd_pcm_open(_Out_ snd_pcm_t **pcm, const char *name, int stream, int mode)'),
    close: f('int snd_pcm_close(snd_pcm_t *pcm)'),
    strerror: f('const char *snd_strerror(int errnum)'),
    hwParamsMalloc: f('int snd_pcm_hw_params_malloc(_Out_ snd_pcm_hw_params_t **ptr)'),
    hwParamsFree: f('void snd_pcm_hw_params_free(snd_pcm_hw_params_t *obj)'),
    hwParamsAny: f('int snd_pcm_hw_params_any(snd_pcm_t *pcm, snd_pcm_hw_params_t *params)'),
    hwSetAccess: f(
      'int snd_pcm_hw_params_set_access(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, int access)',
    ),
    hwSetFormat: f(
      'int snd_pcm_hw_params_set_format(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, int format)',
    ),
    hwSetChannelsNear: f(
      'int snd_pcm_hw_params_set_channels_near(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, _Inout_ unsigned int *val)',
    ),
    hwSetRateNear: f(
      'int snd_pcm_hw_params_set_rate_near(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, _Inout_ unsigned int *val, _Inout_ int *dir)',
    ),
    hwSetPeriodSizeNear: f(
      'int snd_pcm_hw_params_set_period_size_near(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, _Inout_ unsigned long *val, _Inout_ int *dir)',
    ),
    hwSetBufferSizeNear: f(
      'int snd_pcm_hw_params_set_buffer_size_near(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, _Inout_ unsigned long *val)',
    ),
    hwSetRateResample: f(
      'int snd_pcm_hw_params_set_rate_resample(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int val)',
    ),
    hwCanDisablePeriodWakeup: f(
      'int snd_pcm_hw_params_can_disable_period_wakeup(const snd_pcm_hw_params_t *params)',
    ),
    hwSetPeriodWakeup: f(
      'int snd_pcm_hw_params_set_period_wakeup(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int val)',
    ),
    hwParams: f('int snd_pcm_hw_params(snd_pcm_t *pcm, snd_pcm_hw_params_t *params)'),
    hwGetRate: f(
      'int snd_pcm_hw_params_get_rate(const snd_pcm_hw_params_t *params, _Out_ unsigned int *val, _Out_ int *dir)',
    ),
    hwGetChannels: f(
      'int snd_pcm_hw_params_get_channels(const snd_pcm_hw_params_t *params, _Out_ unsigned int *val)',
    ),
    hwGetFormat: f(
      'int snd_pcm_hw_params_get_format(const snd_pcm_hw_params_t *params, _Out_ int *val)',
    ),
    hwGetPeriodSize: f(
      'int snd_pcm_hw_params_get_period_size(const snd_pcm_hw_params_t *params, _Out_ unsigned long *val, _Out_ int *dir)',
    ),
    hwGetBufferSize: f(
      'int snd_pcm_hw_params_get_buffer_size(const snd_pcm_hw_params_t *params, _Out_ unsigned long *val)',
    ),
    swParamsMalloc: f('int snd_pcm_sw_params_malloc(_Out_ snd_pcm_sw_params_t **ptr)'),
    swParamsFree: f('void snd_pcm_sw_params_free(snd_pcm_sw_params_t *obj)'),
    swParamsCurrent: f(
      'int snd_pcm_sw_params_current(snd_pcm_t *pcm, snd_pcm_sw_params_t *params)',
    ),
    swSetStartThreshold: f(
      'int snd_pcm_sw_params_set_start_threshold(snd_pcm_t *pcm, snd_pcm_sw_params_t *params, unsigned long val)',
    ),
    swSetAvailMin: f(
      'int snd_pcm_sw_params_set_avail_min(snd_pcm_t *pcm, snd_pcm_sw_params_t *params, unsigned long val)',
    ),
    swSetPeriodEvent: f(
      'int snd_pcm_sw_params_set_period_event(snd_pcm_t *pcm, snd_pcm_sw_params_t *params, int val)',
    ),
    swSetTstampMode: f(
      'int snd_pcm_sw_params_set_tstamp_mode(snd_pcm_t *pcm, snd_pcm_sw_params_t *params, int val)',
    ),
    swSetTstampType: f(
      'int snd_pcm_sw_params_set_tstamp_type(snd_pcm_t *pcm, snd_pcm_sw_params_t *params, int val)',
    ),
    swParams: f('int snd_pcm_sw_params(snd_pcm_t *pcm, snd_pcm_sw_params_t *params)'),
    prepare: f('int snd_pcm_prepare(snd_pcm_t *pcm)'),
    start: f('int snd_pcm_start(snd_pcm_t *pcm)'),
    drop: f('int snd_pcm_drop(snd_pcm_t *pcm)'),
    drain: f('int snd_pcm_drain(snd_pcm_t *pcm)'),
    resume: f('int snd_pcm_resume(snd_pcm_t *pcm)'),
    recover: f('int snd_pcm_recover(snd_pcm_t *pcm, int err, int silent)'),
    nonblock: f('int snd_pcm_nonblock(snd_pcm_t *pcm, int nonblock)'),
    writei: f('long snd_pcm_writei(snd_pcm_t *pcm, const void *buffer, unsigned long size)'),
    avail: f('long snd_pcm_avail(snd_pcm_t *pcm)'),
    availUpdate: f('long snd_pcm_avail_update(snd_pcm_t *pcm)'),
    delay: f('int snd_pcm_delay(snd_pcm_t *pcm, _Out_ long *delayp)'),
    wait: f('int snd_pcm_wait(snd_pcm_t *pcm, int timeout)'),
    state: f('int snd_pcm_state(snd_pcm_t *pcm)'),
    statusMalloc: f('int snd_pcm_status_malloc(_Out_ snd_pcm_status_t **ptr)'),
    statusFree: f('void snd_pcm_status_free(snd_pcm_status_t *obj)'),
    status: f('int snd_pcm_status(snd_pcm_t *pcm, snd_pcm_status_t *status)'),
    statusGetState: f('int snd_pcm_status_get_state(const snd_pcm_status_t *obj)'),
    statusGetTriggerHtstamp: f(
      'void snd_pcm_status_get_trigger_htstamp(const snd_pcm_status_t *obj, _Out_ xrh_timespec *ptr)',
    ),
    statusGetHtstamp: f(
      'void snd_pcm_status_get_htstamp(const snd_pcm_status_t *obj, _Out_ xrh_timespec *ptr)',
    ),
    statusGetAvail: f('unsigned long snd_pcm_status_get_avail(const snd_pcm_status_t *obj)'),
    statusGetDelay: f('long snd_pcm_status_get_delay(const snd_pcm_status_t *obj)'),
    infoMalloc: f('int snd_pcm_info_malloc(_Out_ snd_pcm_info_t **ptr)'),
    infoFree: f('void snd_pcm_info_free(snd_pcm_info_t *obj)'),
    info: f('int snd_pcm_info(snd_pcm_t *pcm, snd_pcm_info_t *info)'),
    infoGetCard: f('int snd_pcm_info_get_card(const snd_pcm_info_t *obj)'),
    infoGetDevice: f('unsigned int snd_pcm_info_get_device(const snd_pcm_info_t *obj)'),
    infoGetSubdevice: f('unsigned int snd_pcm_info_get_subdevice(const snd_pcm_info_t *obj)'),
    infoGetId: f('const char *snd_pcm_info_get_id(const snd_pcm_info_t *obj)'),
    infoGetName: f('const char *snd_pcm_info_get_name(const snd_pcm_info_t *obj)'),
    infoGetStream: f('int snd_pcm_info_get_stream(const snd_pcm_info_t *obj)'),
    pcmName: f('const char *snd_pcm_name(snd_pcm_t *pcm)'),
    pcmType: f('int snd_pcm_type(snd_pcm_t *pcm)'),
    typeName: f('const char *snd_pcm_type_name(int type)'),
    formatValue: f('int snd_pcm_format_value(const char *name)'),
    formatName: f('const char *snd_pcm_format_name(int format)'),
    formatPhysicalWidth: f('int snd_pcm_format_physical_width(int format)'),
  } as Asound;
  return cached;
}
