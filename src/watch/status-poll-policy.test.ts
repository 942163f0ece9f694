// The watcher must not read the status of a stream the kernel reports (a status read can make
// watch the task that detects the XRUN): the policy, and the poller following it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kernelXrunsCaptured, statusPollDecision } from './status-poll-policy.js';
import { createStreamPoller } from './stream-poller.js';
import { readWatchedStream, type WatchedStream } from './running-streams.js';

const HW =
  'access: MMAP_INTERLEAVED\nformat: S16_LE\nsubformat: STD\nchannels: 2\nrate: 48000 (48000/1)\nperiod_size: 256\nbuffer_size: 16384\n';
// sw_params as PipeWire 0.3.65 set them in the lab (timer mode): the kernel stops the stream.
const SW_REPORTED =
  'tstamp_mode: ENABLE\nperiod_step: 1\navail_min: 256\nstart_threshold: 9223372036854775807\nstop_threshold: 16384\nsilence_threshold: 0\nsilence_size: 0\nboundary: 4611686018427387904\n';
const SW_HIDDEN = SW_REPORTED.replace(
  'stop_threshold: 16384',
  'stop_threshold: 4611686018427387904',
);
const STATUS =
  'state: RUNNING\nowner_pid   : 102\ntrigger_time: 30.7\ntstamp      : 30.7\ndelay       : 0\navail       : 16428\navail_max   : 16428\n-----\nhw_ptr      : 1836\nappl_ptr    : 1792\n';

function tree(sw: string): Map<string, string> {
  return new Map([
    ['/p/asound/card0/pcm0p/sub0/status', STATUS],
    ['/p/asound/card0/pcm0p/sub0/hw_params', HW],
    ['/p/asound/card0/pcm0p/sub0/sw_params', sw],
    ['/p/102/comm', 'pipewire\n'],
  ]);
}

function stream(files: Map<string, string>): WatchedStream {
  return readWatchedStream(
    {
      pcm: 'pcmC0D0p',
      substream: 0,
      card: 0,
      device: 0,
      direction: 'playback',
      cardId: 'Dummy',
      cardName: null,
      driver: null,
      pcmName: null,
      statusPath: '/p/asound/card0/pcm0p/sub0/status',
      xrunDebugPath: null,
    },
    '/p/asound/card0/pcm0p/sub0',
    '/p',
    (p) => files.get(p),
  );
}

test('a stream the kernel reports is not status-polled while a kernel capture runs', () => {
  const s = stream(tree(SW_REPORTED));
  assert.equal(s.owner, 'pipewire');
  assert.equal(statusPollDecision(s, true).readStatus, false);
  assert.equal(statusPollDecision(s, false).readStatus, true, '--capture none keeps the counters');
});

test('the flight recorder counts as a kernel capture only when it is on for sure', () => {
  assert.equal(kernelXrunsCaptured('auto', undefined), true);
  assert.equal(kernelXrunsCaptured('none', undefined), false);
  // GT5 in the lab: --capture none --recorder on, and watch's own status read once detected
  // one of PipeWire's XRUNs.
  assert.equal(kernelXrunsCaptured('none', 'on'), true);
  assert.equal(kernelXrunsCaptured('none', 'auto'), false, 'auto may turn itself off later');
  assert.equal(kernelXrunsCaptured('none', 'off'), false);
  const s = stream(tree(SW_REPORTED));
  assert.equal(statusPollDecision(s, kernelXrunsCaptured('none', 'on')).readStatus, false);
});

test('a stream whose underruns the kernel hides keeps its status polled', () => {
  const s = stream(tree(SW_HIDDEN));
  assert.equal(s.kernel.reports, false);
  assert.equal(statusPollDecision(s, true).readStatus, true);
});

test('the poller reads only hw_params of a reported stream and sees it close', () => {
  const files = tree(SW_REPORTED);
  const s = stream(files);
  const reads: string[] = [];
  const events: string[] = [];
  const poller = createStreamPoller(
    [s],
    (p) => {
      reads.push(p);
      return files.get(p);
    },
    {
      stopped: (label, state) => events.push(`stopped ${label} ${state}`),
      underrun: (label) => events.push(`underrun ${label}`),
      nothingLeft: () => events.push('nothing left'),
    },
    (w) => statusPollDecision(w, true).readStatus,
  );
  poller.poll();
  poller.poll();
  assert.deepEqual(reads, Array(2).fill('/p/asound/card0/pcm0p/sub0/hw_params'));
  assert.deepEqual(events, [], 'the over-full avail of the status file was never read');
  files.set('/p/asound/card0/pcm0p/sub0/hw_params', 'closed\n');
  poller.poll();
  assert.deepEqual(events, ['stopped pcmC0D0p (pipewire, pid 102) closed', 'nothing left']);
});

test('the poller still counts underruns from the status of a hidden stream', () => {
  const files = tree(SW_HIDDEN);
  const s = stream(files);
  const underruns: string[] = [];
  const poller = createStreamPoller(
    [s],
    (p) => files.get(p),
    { stopped: () => {}, underrun: (label) => underruns.push(label), nothingLeft: () => {} },
    (w) => statusPollDecision(w, true).readStatus,
  );
  poller.poll(); // the first read only clears avail_max
  poller.poll();
  assert.deepEqual(underruns, ['pcmC0D0p (pipewire, pid 102)']);
});
