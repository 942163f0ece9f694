// `xrunhunt play` end to end on libasound's `null` PCM (real library, no pacing, no timing)
// and its argument and device errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { runCli } from '../helpers/cli.js';

test('play on null: --json reports the granted parameters, policy and histograms, exit 0', async () => {
  const r = await runCli([
    'play',
    '--device',
    'null',
    '--duration',
    '300ms',
    '--rt-priority',
    '0',
    '--period',
    '128',
    '--periods',
    '3',
    '--json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as Record<string, unknown> & {
    granted: Record<string, unknown>;
    policy: { policy: string; requestedPriority: number };
    histograms: { writeUs: { count: number; p50: number | null } };
    xruns: unknown[];
    frames: number;
    endReason: string;
  };
  assert.deepEqual(j.granted, {
    rate: 48000,
    channels: 2,
    format: 'S16_LE',
    periodFrames: 128,
    bufferFrames: 384,
    frameBytes: 4,
  });
  assert.equal(j.policy.policy, 'SCHED_OTHER');
  assert.equal(j.policy.requestedPriority, 0);
  assert.equal(j.endReason, 'duration');
  assert.deepEqual(j.xruns, []);
  assert.equal(j.hwPcm, null);
  assert.ok(j.frames > 0 && j.histograms.writeUs.count > 0);
  assert.match(r.stderr, /null device never paces/);
});

test('play human output names the device, granted sizes and the histograms', async () => {
  const r = await runCli([
    'play',
    '-D',
    'null',
    '-d',
    '200ms',
    '--rt-priority',
    '0',
    '--format',
    'float_le',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /playing on "null" \(NULL\): 48000 Hz, 2 ch, FLOAT_LE, period 64, buffer 128 frames/,
  );
  assert.match(r.stdout, /played 0\.\d s, \d+ frames, 0 xruns/);
  assert.match(r.stdout, /write µs: +min \d+ +p50/);
});

test('a missing device fails with exit 1, names it and says how to list devices', async () => {
  const r = await runCli(['play', '--device', 'xrunhunt_no_such_pcm', '--duration', '1s']);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /cannot open playback device "xrunhunt_no_such_pcm".*Unknown PCM xrunhunt_no_such_pcm/,
  );
  assert.match(r.stderr, /aplay -L|plug:jack/);
  assert.doesNotMatch(r.stderr, /ALSA lib|at .*\.ts:/);
});

test(
  'default on a machine without sound says so plainly and points at plug:jack and the lab',
  { skip: existsSync('/proc/asound') ? 'this machine has sound cards' : false },
  async () => {
    const r = await runCli(['play', '--duration', '1s']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /"default".*no sound card/);
    assert.match(r.stderr, /plug:jack/);
    assert.match(r.stderr, /lab/);
  },
);

test('bad options are usage errors naming the option', async () => {
  const cases: [string[], RegExp][] = [
    [['--signal', 'noise'], /--signal "noise": expected one of silence, sine/],
    [['--period', 'abc'], /--period "abc"/],
    [['--rt-priority', '120'], /--rt-priority 120: expected a value from 0 to 99/],
    [['--inject-stall', '20y5'], /--inject-stall "20y5"/],
    [['--inject-stall', '20x5', '--duration', '3s'], /needs at least 6s/],
    [['--duration', 'soon'], /--duration "soon"/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(['play', '-D', 'null', ...args]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, re, args.join(' '));
  }
});

test('an unknown format is a clear error', async () => {
  const r = await runCli([
    'play',
    '-D',
    'null',
    '--format',
    'S17_XX',
    '-d',
    '100ms',
    '--rt-priority',
    '0',
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /unknown sample format "S17_XX"/);
});

test('play --wakeup: timer on null is reported (fallback warned on stderr and in --json), a wrong mode is a usage error', async () => {
  const r = await runCli([
    'play',
    '--device',
    'null',
    '--duration',
    '200ms',
    '--wakeup',
    'timer',
    '--json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as {
    wakeup: { requested: string; method: string; periodInterrupts: boolean };
    warnings: string[];
  };
  assert.equal(j.wakeup.requested, 'timer');
  assert.equal(j.wakeup.method, 'avail-min-buffer');
  assert.ok(j.warnings.some((w) => w.startsWith('--wakeup timer: the NULL device')));
  assert.match(
    r.stderr,
    /warning: --wakeup timer: the NULL device cannot turn period interrupts off/,
  );
  const bad = await runCli(['play', '--device', 'null', '--wakeup', 'irq']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid --wakeup "irq": expected one of period, timer/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace');
});

test('the writer thread is named xrunhunt-play, so kernel stacks and the flight recorder name it', async () => {
  const { spawn } = await import('node:child_process');
  const { readFileSync, readdirSync } = await import('node:fs');
  const { cliCommand } = await import('../helpers/cli.js');
  const [cmd, ...pre] = cliCommand();
  const child = spawn(cmd!, [...pre, 'play', '--device', 'null', '--duration', '6s'], {
    stdio: 'ignore',
  });
  try {
    // Poll the child's threads until the worker has named itself (tsx start-up takes ~1 s).
    let comms: string[] = [];
    for (let i = 0; i < 100 && !comms.includes('xrunhunt-play'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      try {
        comms = readdirSync(`/proc/${child.pid}/task`).map((t) =>
          readFileSync(`/proc/${child.pid}/task/${t}/comm`, 'utf8').trim(),
        );
      } catch {
        comms = [];
      }
    }
    assert.ok(comms.includes('xrunhunt-play'), `threads: ${comms.join(', ')}`);
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
  }
});
