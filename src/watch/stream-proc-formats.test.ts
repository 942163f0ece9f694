import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseHwParams,
  parseLoadavg,
  parsePressure,
  parseProcStat,
  parseStreamStatus,
  parseSwParams,
} from './stream-proc-formats.js';

// As sound/core/pcm.c (6.1) prints them for a running snd-dummy substream.
const STATUS = `state: RUNNING
owner_pid   : 812
trigger_time: 412.118404351
tstamp      : 0.000000000
delay       : 384
avail       : 128
avail_max   : 256
-----
hw_ptr      : 1034112
appl_ptr    : 1034496
`;

test('status of a running substream: state, owner, pointers, avail', () => {
  assert.deepEqual(parseStreamStatus(STATUS), {
    state: 'RUNNING',
    ownerPid: 812,
    hwPtr: 1034112,
    applPtr: 1034496,
    avail: 128,
    availMax: 256,
    delay: 384,
  });
});

test('status: closed, empty and garbage never throw', () => {
  assert.equal(parseStreamStatus('closed\n').state, 'closed');
  assert.equal(parseStreamStatus('').state, 'closed');
  const junk = parseStreamStatus('\u0000\u0001 what is this');
  assert.equal(junk.state, 'unknown');
  assert.equal(junk.ownerPid, undefined);
  assert.equal(parseStreamStatus('state: XRUN\nowner_pid   : 0\n').ownerPid, undefined);
});

test('hw_params: rate with its fraction, period and buffer in frames; "closed" gives nothing', () => {
  const hw = parseHwParams(
    'access: MMAP_INTERLEAVED\nformat: S32_LE\nsubformat: STD\nchannels: 2\nrate: 44100 (44100/1)\nperiod_size: 1024\nbuffer_size: 2048\n',
  );
  assert.deepEqual(hw, {
    access: 'MMAP_INTERLEAVED',
    format: 'S32_LE',
    channels: 2,
    rateHz: 44100,
    periodFrames: 1024,
    bufferFrames: 2048,
  });
  assert.equal(parseHwParams('closed\n').bufferFrames, undefined);
  assert.equal(parseHwParams('no setup\n').rateHz, undefined);
});

test('sw_params: thresholds and the 2^62 boundary', () => {
  const sw = parseSwParams(
    'tstamp_mode: ENABLE\nperiod_step: 1\navail_min: 1024\nstart_threshold: 1\nstop_threshold: 4611686018427387904\nsilence_threshold: 0\nsilence_size: 4611686018427387904\nboundary: 4611686018427387904\n',
  );
  assert.equal(sw.startThreshold, 1);
  assert.equal(sw.stopThreshold, 2 ** 62);
  assert.equal(sw.boundary, 2 ** 62);
  assert.equal(sw.silenceSize, 2 ** 62);
});

test('loadavg and pressure', () => {
  assert.deepEqual(parseLoadavg('0.52 0.58 0.59 2/915 12345\n'), {
    one: 0.52,
    five: 0.58,
    fifteen: 0.59,
    running: 2,
    total: 915,
  });
  assert.equal(parseLoadavg('garbage'), undefined);
  const io = parsePressure(
    'some avg10=12.34 avg60=1.00 avg300=0.20 total=4567\nfull avg10=3.21 avg60=0.50 avg300=0.10 total=1234\n',
  );
  assert.deepEqual(io, { someAvg10: 12.34, fullAvg10: 3.21, someTotalUs: 4567 });
  // /proc/pressure/cpu before 5.13 has no "full" line.
  assert.equal(
    parsePressure('some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n').fullAvg10,
    undefined,
  );
});

test('/proc/<pid>/stat: a comm with spaces and parentheses, utime + stime', () => {
  const line =
    '4242 (tmux: server (x)) S 1 4242 4242 0 -1 4194560 1234 0 0 0 150 37 0 0 20 0 1 0 1234 12345678 456 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n';
  assert.deepEqual(parseProcStat(line), {
    pid: 4242,
    comm: 'tmux: server (x)',
    state: 'S',
    cpuTicks: 187,
    systemTicks: 37,
  });
  assert.equal(parseProcStat('not a stat line'), undefined);
});
