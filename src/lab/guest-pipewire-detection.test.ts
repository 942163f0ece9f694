// Which context detected each XRUN, on real dumps recorded with PipeWire in the lab guest
// (test/fixtures/pipewire/README.md says how they were recorded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  recorderHitDetections,
  summariseDetections,
  xrunDetections,
} from './guest-pipewire-detection.js';

const FIXTURE = fileURLToPath(
  new URL('../../test/fixtures/pipewire/lab-timer-xrun-contexts.dmesg.txt', import.meta.url),
);

test('period interrupt, PipeWire ioctl, cpu_stopper task and a status reader are told apart', () => {
  const ds = xrunDetections(readFileSync(FIXTURE, 'utf8'));
  assert.deepEqual(
    ds.map((d) => [d.context, d.via, d.comm, d.pid]),
    [
      ['period-interrupt', 'snd_pcm_period_elapsed', 'node', 180],
      ['ioctl', 'snd_pcm_delay', 'pipewire', 122],
      // The analyzer keeps no frames after a `Stopper:` line: the raw lines still show the IRQ.
      ['period-interrupt', 'snd_pcm_period_elapsed', 'migration/0', 15],
      ['proc-status', 'snd_pcm_substream_proc_status_read', 'node', 180],
    ],
  );
  const sum = summariseDetections(ds);
  assert.equal(sum.total, 4);
  assert.deepEqual(sum.processContextComms, {
    'pipewire via snd_pcm_delay': 1,
    'node via snd_pcm_substream_proc_status_read': 1,
  });
});

test('a log without XRUN dumps has no detections', () => {
  assert.deepEqual(xrunDetections('[    1.0] snd_dummy: loaded\n'), []);
});

test("the recorder's hits: PipeWire's own ioctl on hda (once, though two windows hold it), the dummy's hrtimer", () => {
  const txt = readFileSync(
    new URL('../../test/fixtures/pipewire/lab-recorder-windows.txt', import.meta.url),
    'utf8',
  );
  const d = recorderHitDetections(txt);
  assert.deepEqual(
    d.map((x) => [x.context, x.via, x.comm, x.pid]),
    [
      ['ioctl', 'snd_pcm_delay', 'pipewire', 172],
      ['ioctl', 'snd_pcm_delay', 'pipewire', 172],
      ['period-interrupt', 'snd_pcm_period_elapsed', 'node', 206],
    ],
  );
  assert.deepEqual(recorderHitDetections('# xrunhunt flight recorder: 0 xrun hit(s)\n'), []);
});

test("snd-usb-audio's URB completion stopping the stream counts as the period interrupt", () => {
  const dump = readFileSync(
    new URL('../../test/fixtures/pipewire/lab-usb-timer-xrun-urb.dmesg.txt', import.meta.url),
    'utf8',
  );
  assert.deepEqual(
    xrunDetections(dump).map((d) => [d.context, d.via, d.comm]),
    [['period-interrupt', 'usb URB completion', 'node']],
  );
});
