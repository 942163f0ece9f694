// Session bundles on disk: round trip through the bundle engineer's reader, scrubbing,
// and what `compare` / `session` say about bad input (future formatVersion, truncated gzip,
// bad options) — all without a sound device.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCli } from '../helpers/cli.js';
import { readBundle, type BundleHost } from '../../src/bundle/index.js';
import { correlateXruns } from '../../src/analysis/correlate.js';
import { buildSessionReport } from '../../src/session/report-build.js';
import { renderReportText } from '../../src/session/report-text.js';
import { sessionToBundle, writeBundleFolder } from '../../src/session/session-bundle.js';
import type { SessionParams } from '../../src/session/events.js';
import type { Comparison } from '../../src/session/compare.js';

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-session-bundle-'));
after(() => rmSync(work, { recursive: true, force: true }));

const START = 10_000_000_000;
const params: SessionParams = {
  device: 'hw:CARD=Dummy,DEV=0',
  rateHz: 48000,
  periodFrames: 64,
  periods: 2,
  phasePlan: 'idle:10s,write:10s',
  durationMs: null,
  mask: 3,
  capture: 'auto',
  loadDir: '/home/alice/scratch',
  outDir: '/home/alice/runs/one',
  maxXruns: null,
  rtPriority: 80,
  cpu: null,
  injectStall: false,
  scrub: true,
};
const host: BundleHost = {
  kernelRelease: '6.1.192',
  kernelVersion: '#1 SMP PREEMPT_DYNAMIC',
  arch: 'x86_64',
  preempt: 'full',
  hz: 1000,
  configFlags: { SND_DEBUG: true },
  cards: [{ index: 0, id: 'Dummy', driver: 'Dummy', name: 'Dummy' }],
  cpus: 2,
  memBytes: 1 << 30,
  threadirqs: false,
};

/** Writes a session bundle folder with `fn` offenders and returns its path. */
async function writeSessionFolder(name: string, fn: string, xrunCount: number): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const phases = [
    {
      name: 'idle',
      kind: 'idle',
      startMs: 0,
      endMs: 10_000,
      throughput: null,
      headroomSamplesUs: [],
    },
    {
      name: 'write',
      kind: 'write',
      startMs: 10_000,
      endMs: 20_000,
      throughput: { bytes: 1e8, mbPerSec: 10 },
      headroomSamplesUs: [],
    },
  ];
  const xruns = Array.from({ length: xrunCount }, (_, i) => ({
    timeMs: 11_000 + i * 100,
    monotonicNs: START + (11_000 + i * 100) * 1e6,
    durationMs: 2,
  }));
  const events = xruns.map((x) => ({
    kind: 'xrun' as const,
    pcm: 'pcmC0D0p:0',
    time: (x.monotonicNs - 2e6) / 1e9,
    sessionMs: null,
    phase: null,
    offender: {
      class: 'kernel' as const,
      function: fn,
      module: null,
      signature: `_raw_spin_unlock_irq | ${fn}`,
    },
    frames: ['_raw_spin_unlock_irq', fn, 'ext4_da_write_begin'],
  }));
  const correlation = correlateXruns({
    xruns,
    events,
    pcm: 'pcmC0D0p',
    offsetNs: 0,
    sessionStartNs: START,
    bufferMs: 2.67,
    phases,
  });
  const report = buildSessionReport({
    params,
    host: { ...host, xrunDebugAvailable: true },
    durationMs: 20_000,
    phases,
    xruns,
    capture: { source: 'kmsg', lostMessages: 0, pcm: 'pcmC0D0p', mask: 3 },
    events,
    offenders: xrunCount
      ? [
          {
            function: fn,
            module: null,
            signature: `_raw_spin_unlock_irq | ${fn}`,
            count: xrunCount,
            share: 1,
          },
        ]
      : [],
    correlation,
    clockAlignment: 'marker',
    offsetNs: 0,
    policy: 'SCHED_FIFO 80',
    bufferMs: 2.67,
    limitations: [],
    warnings: ['load dir /home/alice/scratch on myhost.example.com'],
    bundle: dir,
    files: { bundle: null, events: null, kernelLog: null, report: null },
  });
  const bundle = sessionToBundle({
    report,
    host,
    machineId: '0123456789abcdef0123456789abcdef',
    toolVersion: '0.1.0',
    createdAt: new Date(0).toISOString(),
    frames: events.map((e) => e.frames),
    channels: 2,
    format: 'S16_LE',
    bufferFrames: 128,
    rtPolicy: 'SCHED_FIFO',
    rtPriority: 80,
    captureBackend: 'xrun_debug',
    playbackMs: 20_000,
    histograms: {
      headroomUs: { count: 100, min: 0, p50: 1300, p99: 2600, p999: 2650, max: 2660 },
      writeUs: { count: 100, min: 1, p50: 2, p99: 5, p999: 9, max: 12 },
    },
    rulesVersion: '1',
  });
  await writeBundleFolder({
    dir,
    bundle,
    kernelLog: 'Comm: dd at /home/alice/x on myhost\n',
    reportText: renderReportText(report),
    scrub: { hostnames: ['myhost'], users: ['alice'] },
  });
  return dir;
}

test('a session bundle round-trips through readBundle, scrubbed', async () => {
  const dir = await writeSessionFolder('one', '__filemap_add_folio', 3);
  const b = await readBundle(join(dir, 'bundle.json.gz'));
  assert.equal(b.formatVersion, 2);
  assert.equal(b.kind, 'session');
  assert.equal(b.scrubbed, true);
  assert.equal(b.xruns.length, 3);
  assert.deepEqual(
    b.xruns.map((x) => x.kernelEventIndex),
    [0, 1, 2],
  );
  assert.deepEqual(
    b.xruns.map((x) => x.phase),
    ['write', 'write', 'write'],
  );
  assert.deepEqual(b.events[0]!.frames, [
    '_raw_spin_unlock_irq',
    '__filemap_add_folio',
    'ext4_da_write_begin',
  ]);
  assert.equal(b.offenders[0]!.function, '__filemap_add_folio');
  assert.equal(b.phases[1]!.xruns, 3);
  assert.equal(b.params?.mask, 3);
  const text = JSON.stringify(b);
  assert.ok(!text.includes('alice'), 'user name scrubbed');
  assert.ok(!text.includes('myhost'), 'host name scrubbed');
  assert.ok(!readFileSync(join(dir, 'kernel.log'), 'utf8').includes('alice'));
  assert.ok(!readFileSync(join(dir, 'report.txt'), 'utf8').includes('alice'));
});

test('compare of two bundles: offenders new, gone and moved', async () => {
  const a = await writeSessionFolder('a', '__filemap_add_folio', 4);
  const b = await writeSessionFolder('b', 'test_unlock', 2);
  const r = await runCli(['compare', a, b, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const c = JSON.parse(r.stdout) as Comparison;
  assert.equal(c.a.xruns, 4);
  assert.equal(c.b.xruns, 2);
  const byFn = Object.fromEntries(c.offenders.map((o) => [o.function, o.status]));
  assert.deepEqual(byFn, { test_unlock: 'new', __filemap_add_folio: 'gone' });
  const write = c.phases.find((p) => p.name === 'write')!;
  assert.equal(write.a!.xruns, 4);
  assert.equal(write.b!.xrunsPerMin, 12);
  assert.equal(write.a!.mbPerSec, 10);
});

test('compare refuses a bundle from a future formatVersion with a clear message', async () => {
  const dir = await writeSessionFolder('future', 'x', 1);
  const raw = JSON.parse(
    (await import('node:zlib')).gunzipSync(readFileSync(join(dir, 'bundle.json.gz'))).toString(),
  ) as Record<string, unknown>;
  raw['formatVersion'] = 99;
  const future = join(work, 'future.json.gz');
  writeFileSync(future, gzipSync(JSON.stringify(raw)));
  const r = await runCli(['compare', dir, future]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^xrunhunt: error: .*99/m);
  assert.doesNotMatch(r.stderr, /internal error|at .*\.ts:\d+/);
});

test('compare refuses a truncated gzip bundle with a clear message', async () => {
  const dir = await writeSessionFolder('trunc', 'x', 1);
  const bytes = readFileSync(join(dir, 'bundle.json.gz'));
  const cut = join(work, 'cut.json.gz');
  writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
  const r = await runCli(['compare', dir, cut]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^xrunhunt: error: /m);
  assert.doesNotMatch(r.stderr, /internal error/);
});

test('compare: wrong argument count, missing path, folder without a bundle', async () => {
  const one = await runCli(['compare', work]);
  assert.equal(one.code, 1);
  assert.match(one.stderr, /exactly two bundles/);
  const missing = await runCli(['compare', join(work, 'nope'), join(work, 'nope2')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no such bundle or session folder/);
  const empty = join(work, 'empty');
  mkdirSync(empty);
  const noBundle = await runCli(['compare', empty, empty]);
  assert.equal(noBundle.code, 1);
  assert.match(noBundle.stderr, /folder without bundle\.json\.gz/);
});

test('session rejects bad options before touching anything', async () => {
  const cases: [string[], RegExp][] = [
    [['--phases', 'idle:10s,bogus:5s'], /unknown load "bogus"/],
    [['--period', 'abc'], /invalid --period \(frames, or auto\) "abc"/],
    [['--pcm', 'card0'], /invalid --pcm "card0"/],
    [['--capture', 'tea'], /invalid --capture "tea"/],
    [['--inject-stall', 'lots'], /invalid --inject-stall/],
    [['--duration', '0s'], /invalid --duration/],
  ];
  for (const [args, re] of cases) {
    const out = join(work, `never-${args[0]!.slice(2)}`);
    const r = await runCli(['session', '--device', 'null', '--out', out, ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.throws(() => readFileSync(join(out, 'events.ndjson')), 'nothing written');
  }
});

test('stress rejects bad lists with the option named', async () => {
  const r = await runCli(['stress', '--periods', '64,,128']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /invalid --periods "64,,128"/);
  const l = await runCli(['stress', '--loads', 'idle,nap']);
  assert.equal(l.code, 1);
  assert.match(l.stderr, /invalid --loads entry "nap"/);
});

test('--junit FILE in a folder that does not exist: a usage error before anything runs', async () => {
  const junit = ['--junit', join(work, 'no-such-dir', 'j.xml')];
  for (const cmd of [
    ['session', '--device', 'null', '--out', join(work, 'never-junit-session')],
    ['stress', '--device', 'null'],
    ['watch', '--out', join(work, 'never-junit-watch')],
  ]) {
    const r = await runCli([...cmd, ...junit]);
    assert.equal(r.code, 1, `${cmd[0]}: ${r.stderr}`);
    assert.match(r.stderr, /invalid --junit ".*j\.xml": the folder ".*no-such-dir" does not exist/);
    assert.ok(!existsSync(join(work, `never-junit-${cmd[0]}`)), 'nothing written');
  }
});

test('session and stress --junit on the null device: a case per phase and per cell', async () => {
  const env = { XDG_STATE_HOME: join(work, 'junit-state') };
  const sessionXml = join(work, 'session-junit.xml');
  const s = await runCli(
    [
      'session',
      '--device',
      'null',
      '--phases',
      'idle:300ms,write:300ms',
      '--capture',
      'none',
      '--out',
      join(work, 'junit-session'),
      '--junit',
      sessionXml,
      '--json',
    ],
    { env, timeoutMs: 60_000 },
  );
  assert.ok(s.code === 0 || s.code === 2, s.stderr);
  const report = JSON.parse(s.stdout) as { phases: { name: string; xruns: number }[] };
  const xml = readFileSync(sessionXml, 'utf8');
  assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>/);
  assert.deepEqual(
    [...xml.matchAll(/<testcase name="([^"]+)" classname="xrunhunt.session"/g)].map((m) => m[1]),
    report.phases.map((p) => p.name),
  );
  const failed = report.phases.filter((p) => p.xruns > 0).length;
  assert.match(xml, new RegExp(`<testsuite [^>]*tests="2" failures="${failed}"`));

  const stressXml = join(work, 'stress-junit.xml');
  const t = await runCli(
    [
      'stress',
      '--device',
      'null',
      '--periods',
      '256,512',
      '--loads',
      'idle',
      '--each',
      '300ms',
      '--capture',
      'none',
      '--rt-priority',
      '0',
      '--junit',
      stressXml,
      '--json',
    ],
    { env, timeoutMs: 60_000 },
  );
  assert.ok(t.code === 0 || t.code === 2, t.stderr);
  const matrix = JSON.parse(t.stdout) as {
    cells: { periodFrames: number; xruns: number | null }[];
  };
  const sx = readFileSync(stressXml, 'utf8');
  assert.deepEqual(
    [...sx.matchAll(/<testcase name="([^"]+)"/g)].map((m) => m[1]),
    matrix.cells.map((c) => `idle @ period ${c.periodFrames}`),
  );
  const skipped = matrix.cells.filter((c) => c.xruns === null).length;
  assert.match(sx, new RegExp(`<testsuite [^>]*tests="2" [^>]*skipped="${skipped}"`));
});

// Issue 30 item 6: `session --json > DIR/o` with --out DIR ended with an empty `o`, exit 2 and
// no output: the close-time scrub rewrote the files it had not written. Now DIR's own files
// stay byte for byte and the run goes into a fresh subfolder it names.
test("session --out DIR that holds the user's files writes a subfolder and touches none of them", async () => {
  const dir = join(work, 'users-own');
  mkdirSync(dir);
  const host = hostname();
  const mine = {
    o: '',
    e: 'partial stderr\n',
    'notes.txt': `machine ${host} at /home/${userInfo().username}\n`,
  };
  for (const [name, text] of Object.entries(mine)) writeFileSync(join(dir, name), text);
  const r = await runCli(
    [
      'session',
      '--device',
      'null',
      '--phases',
      'idle:300ms',
      '--capture',
      'none',
      '--out',
      dir,
      '--json',
    ],
    { env: { XDG_STATE_HOME: join(work, 'users-own-state') }, timeoutMs: 60_000 },
  );
  assert.ok(r.code === 0 || r.code === 2, r.stderr);
  for (const [name, text] of Object.entries(mine))
    assert.equal(readFileSync(join(dir, name), 'utf8'), text, `${name} is as the user left it`);
  const subs = readdirSync(dir).filter((n) => n.startsWith('xrunhunt-'));
  assert.equal(subs.length, 1, readdirSync(dir).join(', '));
  const report = JSON.parse(r.stdout) as { files: { bundle: string | null } };
  assert.equal(report.files.bundle, join(dir, subs[0]!, 'bundle.json.gz'));
  assert.ok(existsSync(join(dir, subs[0]!, 'events.ndjson')));
  assert.match(r.stderr, /already holds files, which are left as they are; this run writes to/);
});
