// `xrunhunt watch` end to end against fake /proc trees (plain files laid out like 6.1's
// /proc/asound; see test/helpers/fake-proc.ts): which streams it finds and whom it names as
// owners, the plain "nothing is playing" errors, xrun_debug set on the watched PCM and put
// back, and the bundle `analyze` / `compare` read. The kernel log is the host's real one
// (this host has no sound card, so no XRUN is expected; the XRUN path is the lab test's).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { createFakeSystem, dummyCard, hdaCard, type FakeSystem } from '../helpers/fake-proc.js';
import { readBundle } from '../../src/bundle/index.js';

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-watch-e2e-'));
const fakes: FakeSystem[] = [];
after(() => {
  for (const f of fakes) f.cleanup();
  rmSync(work, { recursive: true, force: true });
});

/** status of a RUNNING playback substream as 6.1 prints it. */
function runningStatus(pid: number, hwPtr = 96_000, applPtr = 96_256): string {
  return [
    'state: RUNNING',
    `owner_pid   : ${pid}`,
    'trigger_time: 1234.567890123',
    'tstamp      : 1236.567890123',
    'delay       : 256',
    'avail       : 256',
    'avail_max   : 384',
    '-----',
    `hw_ptr      : ${hwPtr}`,
    `appl_ptr    : ${applPtr}`,
    '',
  ].join('\n');
}

const HW_PARAMS = [
  'access: RW_INTERLEAVED',
  'format: S16_LE',
  'subformat: STD',
  'channels: 2',
  'rate: 48000 (48000/1)',
  'period_size: 256',
  'buffer_size: 512',
  '',
].join('\n');

function swParams(stop: string, silence = '0'): string {
  return [
    'tstamp_mode: ENABLE',
    'period_step: 1',
    'avail_min: 256',
    'start_threshold: 512',
    `stop_threshold: ${stop}`,
    'silence_threshold: 0',
    `silence_size: ${silence}`,
    'boundary: 4611686018427387904',
    '',
  ].join('\n');
}

/** A dummy card whose pcm0p sub0 is played by `comm` (pid 4242), and an idle HDA card. */
function playingSystem(
  opts: { stop?: string; silence?: string; mask?: number | null; comm?: string } = {},
): FakeSystem {
  const card = dummyCard({}, opts.mask === undefined ? 0 : opts.mask);
  card.pcms[0]!.subs = [{ status: runningStatus(4242) }, {}];
  const fake = createFakeSystem({
    cards: [card, hdaCard({}, 0)],
    proc: {
      '4242/comm': `${opts.comm ?? 'pipewire'}\n`,
      'sys/kernel/osrelease': '6.1.192\n',
      loadavg: '1.52 0.80 0.40 3/210 4300\n',
      'pressure/io':
        'some avg10=12.50 avg60=3.00 avg300=1.00 total=123456\nfull avg10=4.00 avg60=1.00 avg300=0.50 total=65432\n',
    },
  });
  fake.writeProc('asound/card0/pcm0p/sub0/hw_params', HW_PARAMS);
  fake.writeProc('asound/card0/pcm0p/sub0/sw_params', swParams(opts.stop ?? '512', opts.silence));
  fakes.push(fake);
  return fake;
}

const envFor = (fake: FakeSystem): NodeJS.ProcessEnv => ({
  XDG_STATE_HOME: join(fake.base, 'state'),
});

test('nothing playing (every substream closed): exit 1, the reason and what to do', async () => {
  const fake = createFakeSystem({ cards: [dummyCard(), hdaCard()] });
  fakes.push(fake);
  const r = await runCli(['watch', '--proc-root', fake.procRoot, '--out', join(work, 'none')], {
    env: envFor(fake),
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /error: nothing is playing on 5 PCM stream\(s\): every substream is closed/,
  );
  assert.match(r.stderr, /start the audio you want to diagnose first/);
  assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
  assert.equal(fake.readProc('asound/card0/pcm0p/xrun_debug'), '0\n', 'nothing changed');
});

test('open but not playing: names the stream, its owner and its state', async () => {
  const card = dummyCard();
  card.pcms[0]!.subs = [{ status: runningStatus(4242).replace('RUNNING', 'PREPARED') }];
  const fake = createFakeSystem({ cards: [card], proc: { '4242/comm': 'aplay\n' } });
  fakes.push(fake);
  const r = await runCli(['watch', '--proc-root', fake.procRoot], { env: envFor(fake) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /open but not playing: pcmC0D0p \(aplay, pid 4242\) is PREPARED/);
});

test('no /proc/asound: no kernel stream to watch, exit 1', async () => {
  const fake = createFakeSystem({ asound: false });
  fakes.push(fake);
  const r = await runCli(['watch', '--proc-root', fake.procRoot], { env: envFor(fake) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no kernel stream to watch: .*asound does not exist/);
});

test('--pcm naming a stream that is not playing, or does not exist', async () => {
  const fake = playingSystem();
  const idle = await runCli(['watch', '--proc-root', fake.procRoot, '--pcm', 'pcmC1D0p'], {
    env: envFor(fake),
  });
  assert.equal(idle.code, 1);
  assert.match(idle.stderr, /nothing is playing on pcmC1D0p: every substream is closed/);
  const missing = await runCli(['watch', '--proc-root', fake.procRoot, '--pcm', 'pcmC7D0p'], {
    env: envFor(fake),
  });
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /--pcm pcmC7D0p: no such PCM .* \(it has pcmC0D0c, pcmC0D0p, pcmC1D0c, pcmC1D0p, pcmC1D3p\)/,
  );
  const bad = await runCli(['watch', '--pcm', 'hw:0,0'], { env: envFor(fake) });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid --pcm "hw:0,0": expected a kernel PCM name like pcmC0D0p/);
});

test('a playing stream: owner named, period/buffer read, xrun_debug set then restored, bundle of kind watch', async () => {
  const fake = playingSystem();
  const out = join(work, 'playing');
  const r = await runCli(
    ['watch', '--proc-root', fake.procRoot, '--duration', '1500ms', '--out', out, '--json'],
    { env: envFor(fake), timeoutMs: 30_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string } & Record<string, unknown>);
  const start = lines.find((l) => l.type === 'watch-start') as unknown as {
    streams: {
      label: string;
      owner: string;
      ownerPid: number;
      periodFrames: number;
      bufferFrames: number;
      rateHz: number;
      kernelReports: boolean;
    }[];
  };
  assert.ok(start, 'a watch-start event');
  assert.equal(start.streams.length, 1, 'only the running substream');
  const s = start.streams[0]!;
  assert.equal(s.owner, 'pipewire');
  assert.equal(s.ownerPid, 4242);
  assert.deepEqual([s.periodFrames, s.bufferFrames, s.rateHz], [256, 512, 48000]);
  assert.equal(s.kernelReports, true);
  const capture = lines.find((l) => l.type === 'capture-status') as unknown as {
    mask: number | null;
    source: string;
  };
  const last = lines.at(-1) as unknown as {
    type: string;
    report: { exitCode: number; conclusion: string[]; params: { device: string } };
    watch: { stopReason: string; streams: { label: string }[] };
  };
  assert.equal(last.type, 'watch-report', 'the report is the last line');
  assert.match(last.watch.stopReason, /--duration/);
  assert.match(
    last.report.conclusion[0]!,
    /^No xruns in \d+ s of watching pcmC0D0p \(pipewire, pid 4242\), period 256 \/ buffer 512 at 48000 Hz \(10\.7 ms\)/,
  );
  if (capture.source !== 'none') {
    assert.equal(capture.mask, 3, 'xrun_debug set on the watched PCM while watching');
  }
  assert.equal(fake.readProc('asound/card0/pcm0p/xrun_debug').trim(), '0', 'xrun_debug restored');
  assert.equal(fake.readProc('asound/card1/pcm0p/xrun_debug'), '0\n', 'unwatched PCM untouched');
  const bundle = await readBundle(join(out, 'bundle.json.gz'));
  assert.equal(bundle.kind, 'watch');
  assert.equal(bundle.params?.phases, 'watch');
  assert.equal(bundle.params?.periodFrames, 256);
  const analyze = await runCli(['analyze', join(out, 'bundle.json.gz'), '--json']);
  assert.equal(analyze.code, 0, analyze.stderr);
  const compare = await runCli(['compare', out, out]);
  assert.equal(compare.code, 0, compare.stderr);
  assert.match(compare.stdout, /watch: pcmC0D0p \(pipewire, pid 4242\), period 256 \/ buffer 512/);
  const aggregate = await runCli(['aggregate', out, '--json', '--db', join(work, 'fleet.db')]);
  assert.equal(aggregate.code, 0, aggregate.stderr);
});

test('an owner that keeps the kernel from stopping its stream: said plainly, underruns counted from its counters', async () => {
  const fake = playingSystem({ stop: '4611686018427387904', silence: '4611686018427387904' });
  // The stream's counters show the buffer ran empty (avail_max past the 512-frame buffer) on every read.
  fake.writeProc(
    'asound/card0/pcm0p/sub0/status',
    runningStatus(4242, 200_000, 199_500).replace('avail_max   : 384', 'avail_max   : 1012'),
  );
  const r = await runCli(
    ['watch', '--proc-root', fake.procRoot, '--duration', '1200ms', '--out', join(work, 'hidden')],
    { env: envFor(fake), timeoutMs: 30_000 },
  );
  assert.equal(r.code, 2, `underruns seen → exit 2\n${r.stderr}`);
  assert.match(
    r.stdout,
    /stop_threshold to the boundary \(never stop\) and the kernel fills the buffer with silence: underruns are played as silence and the kernel never reports them/,
  );
  const n = Number(/Its own counters showed (\d+) underrun/.exec(r.stdout)?.[1]);
  assert.ok(n >= 2, `several polls showed the underrun (got ${n})\n${r.stdout}`);
  assert.match(r.stdout, /give PipeWire a larger quantum/);
});

test('bad option values are usage errors before anything is looked at or changed', async () => {
  const fake = playingSystem();
  const cases: [string[], RegExp][] = [
    [['--until-xruns', '0'], /--until-xruns/],
    [['--duration', 'soon'], /--duration/],
    [['--rank-every', '100ms'], /invalid --rank-every "100ms": expected 1s or more/],
    [['--capture', 'psychic'], /invalid --capture "psychic"/],
    [['--json', '--tui'], /--json and --tui cannot be combined/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(['watch', '--proc-root', fake.procRoot, ...args], { env: envFor(fake) });
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, re);
    assert.equal(fake.readProc('asound/card0/pcm0p/xrun_debug'), '0\n', 'untouched');
  }
});

test('the bundle folder is scrubbed at close, the live-written events.ndjson included (a user name inside a process name)', async () => {
  const fake = playingSystem({ comm: 'ardour-alice' });
  const out = join(work, 'scrubbed');
  const r = await runCli(
    [
      'watch',
      '--proc-root',
      fake.procRoot,
      '--duration',
      '1500ms',
      '--capture',
      'none',
      '--out',
      out,
      '--json',
    ],
    { env: { ...envFor(fake), SUDO_USER: 'alice', HOME: '/home/alice' }, timeoutMs: 30_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /ardour-alice/,
    'the live stream on stdout names the owner (not a file to attach)',
  );
  const names = readdirSync(out);
  for (const want of ['events.ndjson', 'report.txt', 'bundle.json.gz'])
    assert.ok(names.includes(want), want);
  for (const name of names) {
    const raw = readFileSync(join(out, name));
    const text = (name.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
    assert.doesNotMatch(text, /alice/, `${name} still names the user`);
  }
  assert.match(readFileSync(join(out, 'events.ndjson'), 'utf8'), /ardour-<user>/);
});
