// Run in the lab guest by test/lab/cards.test.ts (plain JS: no tsx start-up under TCG).
// Asks libasound whether a device can run without period interrupts
// (snd_pcm_hw_params_can_disable_period_wakeup), then configures it that way at
// period 256 / buffer 1024, plays 1 s of silence and prints one JSON line. Non-blocking with its
// own sleeps, as a timer-scheduled client (PipeWire) does: without period interrupts a blocking
// write would never be woken.
import koffi from 'koffi';

const device = process.argv[2] ?? 'hw:CARD=Dummy,DEV=0';
const lib = koffi.load('libasound.so.2');
koffi.opaque('snd_pcm_t');
koffi.opaque('snd_pcm_hw_params_t');
const open = lib.func(
  'int snd_pcm_open(_Out_ snd_pcm_t **pcm, const char *name, int stream, int mode)',
);
const close = lib.func('int snd_pcm_close(snd_pcm_t *pcm)');
const malloc = lib.func('int snd_pcm_hw_params_malloc(_Out_ snd_pcm_hw_params_t **ptr)');
const any = lib.func('int snd_pcm_hw_params_any(snd_pcm_t *pcm, snd_pcm_hw_params_t *params)');
const canDisable = lib.func(
  'int snd_pcm_hw_params_can_disable_period_wakeup(const snd_pcm_hw_params_t *params)',
);
const setWakeup = lib.func(
  'int snd_pcm_hw_params_set_period_wakeup(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int val)',
);
const setAccess = lib.func(
  'int snd_pcm_hw_params_set_access(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, int access)',
);
const setFormat = lib.func(
  'int snd_pcm_hw_params_set_format(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, int format)',
);
const setChannels = lib.func(
  'int snd_pcm_hw_params_set_channels(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int val)',
);
const setRate = lib.func(
  'int snd_pcm_hw_params_set_rate(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int val, int dir)',
);
const setPeriod = lib.func(
  'int snd_pcm_hw_params_set_period_size(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned long val, int dir)',
);
const setBuffer = lib.func(
  'int snd_pcm_hw_params_set_buffer_size(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned long val)',
);
const hwParams = lib.func('int snd_pcm_hw_params(snd_pcm_t *pcm, snd_pcm_hw_params_t *params)');
const writei = lib.func('long snd_pcm_writei(snd_pcm_t *pcm, const void *buf, unsigned long size)');
const prepare = lib.func('int snd_pcm_prepare(snd_pcm_t *pcm)');
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
const sleepMs = (ms) => Atomics.wait(sleepCell, 0, 0, ms);

const pcmOut = [null];
const rcOpen = open(pcmOut, device, 0, 1 /* SND_PCM_NONBLOCK */);
if (rcOpen < 0) {
  console.log(JSON.stringify({ device, error: `snd_pcm_open ${rcOpen}` }));
  process.exit(1);
}
const pcm = pcmOut[0];
const paramsOut = [null];
malloc(paramsOut);
const params = paramsOut[0];
any(pcm, params);
const can = canDisable(params);
const steps = {
  access: setAccess(pcm, params, 3 /* RW_INTERLEAVED */),
  format: setFormat(pcm, params, 2 /* S16_LE */),
  channels: setChannels(pcm, params, 2),
  rate: setRate(pcm, params, 48000, 0),
  period: setPeriod(pcm, params, 256, 0),
  buffer: setBuffer(pcm, params, 1024),
  wakeupOff: can === 1 ? setWakeup(pcm, params, 0) : null,
  hwParams: 0,
  written: 0,
  xruns: 0,
  writeError: 0,
};
steps.hwParams = hwParams(pcm, params);
if (steps.hwParams === 0) {
  const chunk = Buffer.alloc(256 * 4);
  const until = Date.now() + 5000;
  while (steps.written < 48000 && Date.now() < until) {
    const n = Number(writei(pcm, chunk, 256));
    if (n === -11 /* EAGAIN: buffer full */) sleepMs(4);
    else if (n === -32 /* EPIPE: underrun */) {
      steps.xruns++;
      prepare(pcm);
    } else if (n < 0) {
      steps.writeError = n;
      break;
    } else steps.written += n;
  }
}
close(pcm);
console.log(JSON.stringify({ device, canDisablePeriodWakeup: can, ...steps }));
