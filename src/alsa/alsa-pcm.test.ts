// The real binding against libasound's `null` PCM: real library, real calls, no timing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AlsaPcm } from './alsa-pcm.js';
import { AlsaError, ERRNO } from './alsa-error.js';
import { PCM_STATE } from './pcm-binding.js';

const req = { rate: 48000, channels: 2, format: 'S16_LE', periodFrames: 64, periods: 2 };

test('null grants 48 kHz / 2 ch / S16_LE / 64 / 128 as asked', () => {
  const pcm = AlsaPcm.open('null');
  try {
    assert.deepEqual(pcm.configure(req), {
      rate: 48000,
      channels: 2,
      format: 'S16_LE',
      periodFrames: 64,
      bufferFrames: 128,
      frameBytes: 4,
    });
    assert.equal(pcm.typeName(), 'NULL');
    // No card underneath a null PCM.
    assert.equal(pcm.hwPcm(), null);
  } finally {
    pcm.close();
  }
});

test('other formats and sizes are negotiated and reported as granted', () => {
  const pcm = AlsaPcm.open('null');
  try {
    const g = pcm.configure({
      rate: 44100,
      channels: 1,
      format: 'FLOAT_LE',
      periodFrames: 100,
      periods: 3,
    });
    assert.equal(g.format, 'FLOAT_LE');
    assert.equal(g.channels, 1);
    assert.equal(g.rate, 44100);
    assert.equal(g.frameBytes, 4);
    assert.ok(g.periodFrames > 0 && g.bufferFrames >= g.periodFrames, JSON.stringify(g));
  } finally {
    pcm.close();
  }
});

test('writes, status and recover work on a configured PCM', () => {
  const pcm = AlsaPcm.open('null');
  try {
    const g = pcm.configure(req);
    const buf = Buffer.alloc(g.periodFrames * g.frameBytes);
    assert.equal(pcm.availUpdate(), 128);
    assert.equal(pcm.writei(buf, 64), 64);
    const st = pcm.status();
    assert.ok(typeof st !== 'number');
    assert.equal(st.state, PCM_STATE.PREPARED);
    assert.ok(st.nowNs > 0n);
    assert.equal(pcm.recover(-ERRNO.EPIPE), 0);
    assert.equal(pcm.state(), PCM_STATE.PREPARED);
    assert.equal(pcm.drop(), 0);
    assert.match(pcm.strerror(-ERRNO.EPIPE), /Broken pipe/);
  } finally {
    pcm.close();
  }
});

test('an unknown format is a clear error naming the format', () => {
  const pcm = AlsaPcm.open('null');
  try {
    assert.throws(
      () => pcm.configure({ ...req, format: 'S17_XX' }),
      (e: unknown) => e instanceof AlsaError && /unknown sample format "S17_XX"/.test(e.message),
    );
  } finally {
    pcm.close();
  }
});

test('a missing device is an AlsaError that names it and says how to list devices', () => {
  assert.throws(
    () => AlsaPcm.open('xrunhunt_no_such_pcm'),
    (e: unknown) =>
      e instanceof AlsaError &&
      e.op === 'snd_pcm_open' &&
      e.errno === ERRNO.ENOENT &&
      e.device === 'xrunhunt_no_such_pcm' &&
      /"xrunhunt_no_such_pcm"/.test(e.message) &&
      /aplay -L/.test(e.hint ?? ''),
  );
});

test('close twice is harmless', () => {
  const pcm = AlsaPcm.open('null');
  pcm.close();
  pcm.close();
});

test('--wakeup on null: period is the period mode; timer falls back (no kernel PCM to turn period interrupts off) and says why', () => {
  const period = AlsaPcm.open('null');
  try {
    period.configure(req);
    assert.equal(period.wakeup.method, 'period-interrupts');
    assert.equal(period.wakeup.requested, 'period');
  } finally {
    period.close();
  }
  const timer = AlsaPcm.open('null');
  try {
    timer.configure({ ...req, wakeup: 'timer' });
    const w = timer.wakeup;
    assert.deepEqual(
      { requested: w.requested, method: w.method, periodInterrupts: w.periodInterrupts },
      { requested: 'timer', method: 'avail-min-buffer', periodInterrupts: true },
    );
    assert.match(
      w.reason,
      /^the NULL device cannot turn period interrupts off: it has no kernel PCM/,
    );
    // snd_pcm_delay through the real library: a frame count, never negative.
    assert.equal(timer.prepare(), 0);
    assert.ok(timer.delay() >= 0);
    assert.equal(timer.writei(Buffer.alloc(64 * 4), 64), 64);
    assert.ok(timer.delay() >= 0);
  } finally {
    timer.close();
  }
});
