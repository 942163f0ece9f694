import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kernelReporting, sampleShowsUnderrun } from './hidden-xruns.js';

const hw = {
  access: undefined,
  format: undefined,
  channels: 2,
  rateHz: 48000,
  periodFrames: 256,
  bufferFrames: 512,
};
const sw = (stop: number | undefined, silence = 0) => ({
  startThreshold: 512,
  stopThreshold: stop,
  silenceThreshold: 0,
  silenceSize: silence,
  boundary: 2 ** 62,
});

test('a stream that stops at an empty buffer is reported by the kernel', () => {
  assert.deepEqual(kernelReporting(hw, sw(512)), { reports: true, reason: null });
});

test('stop_threshold at the boundary with silence filling: the kernel never reports, said plainly', () => {
  const k = kernelReporting(hw, sw(2 ** 62, 2 ** 62));
  assert.equal(k.reports, false);
  assert.match(
    k.reason!,
    /to the boundary \(never stop\) and the kernel fills the buffer with silence: underruns are played as silence and the kernel never reports them/,
  );
});

test('stop_threshold above the buffer but below the boundary: late, if at all', () => {
  const k = kernelReporting(hw, sw(2048));
  assert.equal(k.reports, false);
  assert.match(
    k.reason!,
    /to 2048 frames, above the 512-frame buffer: underruns are played as stale audio and the kernel reports them late, if at all/,
  );
});

test('unreadable sw_params: assumed reported, with the reason', () => {
  const k = kernelReporting(hw, sw(undefined));
  assert.equal(k.reports, true);
  assert.match(k.reason!, /could not be read/);
});

test('underrun seen in the counters: avail_max at the buffer, hw_ptr past appl_ptr, XRUN state', () => {
  const base = { state: 'RUNNING', avail: 100, availMax: 300, hwPtr: 1000, applPtr: 1400 };
  assert.equal(sampleShowsUnderrun(base, 512, 'playback'), false);
  assert.equal(sampleShowsUnderrun({ ...base, availMax: 512 }, 512, 'playback'), true);
  assert.equal(sampleShowsUnderrun({ ...base, hwPtr: 1500 }, 512, 'playback'), true);
  // For capture, the hardware pointer leads the application's by design.
  assert.equal(sampleShowsUnderrun({ ...base, hwPtr: 1500 }, 512, 'capture'), false);
  assert.equal(sampleShowsUnderrun({ ...base, state: 'XRUN' }, 512, 'playback'), true);
  // A prepared (not started) playback stream is empty by definition: not an underrun.
  assert.equal(
    sampleShowsUnderrun({ ...base, state: 'PREPARED', avail: 512 }, 512, 'playback'),
    false,
  );
});
