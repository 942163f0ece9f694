// The session loop in process on a fake /proc tree: real playback on libasound's `null`
// device (no kernel PCM behind it, so --pcm names the one to set xrun_debug on), a MOCK
// kernel-log source replaying real XRUN dumps, a MOCK load generator. Everything else is
// real: discovery, xrun_debug journaled and restored, the live analyzer, the report, the
// event log and the bundle.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createFakeSystem, dummyCard, type FakeSystem } from '../../test/helpers/fake-proc.js';
import { readBundle } from '../bundle/index.js';
import type { LoadGenerator, LoadKind, LoadStats } from '../load/index.js';
import { startPlayback } from '../playback/index.js';
import type { PlaybackOptions } from '../playback/index.js';
import {
  discoverAsound,
  readProcessStartTicks,
  SettingsJournal,
  sessionJournalFile,
} from '../proc/index.js';
import type { CaptureContext } from '../kernel/source-contract.js';
import { kernelLogFixture, mockCapture } from '../run/mock-capture.js';
import { parseEventLog } from './event-log.js';
import type { SessionEvent } from './events.js';
import { startSession, type SessionDeps, type SessionOptions } from './run-session.js';
import { parseSessionValues } from './session-options.js';

const LOCKUP = kernelLogFixture('lab-6.1-x86_64-lockup-test_unlock-irq.txt');

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-run-session-'));
const fakes: FakeSystem[] = [];
after(() => {
  fakes.forEach((f) => f.cleanup());
  rmSync(work, { recursive: true, force: true });
});

/** MOCK load: counts bytes until its duration or the signal ends it. */
function mockLoad(kind: LoadKind, durationMs: number): LoadGenerator {
  let bytes = 0;
  const stats = (): LoadStats => ({ kind, seconds: 0.1, bytes, mbPerSec: 1, workers: 1 });
  return {
    kind,
    cleaned: [],
    stats,
    start: (signal) =>
      new Promise((resolve) => {
        const tick = setInterval(() => (bytes += 1000), 20);
        const end = (): void => {
          clearInterval(tick);
          clearTimeout(t);
          resolve({ ...stats(), stopReason: signal?.aborted ? 'interrupted' : 'duration' });
        };
        const t = setTimeout(end, durationMs);
        signal?.addEventListener('abort', end, { once: true });
      }),
  };
}

interface Run {
  fake: FakeSystem;
  out: string;
  journalDir: string;
  contexts: CaptureContext[];
  masksSeen: string[];
}

function setup(name: string): Run {
  const fake = createFakeSystem({ cards: [dummyCard({}, 0)] });
  fakes.push(fake);
  return {
    fake,
    out: join(work, name, 'bundle'),
    journalDir: join(work, name, 'journal'),
    contexts: [],
    masksSeen: [],
  };
}

function deps(run: Run, lines: string[]): SessionDeps {
  return {
    now: () => process.hrtime.bigint(),
    discover: (root) => discoverAsound(root),
    startPlayback: (options, ctx) => startPlayback(options, ctx),
    createLoad: (kind, options) => mockLoad(kind, options.durationMs),
    selectCapture: async (_capture, _signal, context) => {
      if (context) run.contexts.push(context);
      return { source: mockCapture(lines), name: 'kmsg', skipped: [] };
    },
  };
}

function options(run: Run, extra: Record<string, string> = {}): SessionOptions {
  const plan = parseSessionValues(
    {
      device: 'null',
      period: '256',
      periods: '2',
      rate: '48000',
      phases: 'idle:400ms,write:400ms',
      mask: '3',
      'rt-priority': '0',
      capture: 'auto',
      pcm: 'pcmC0D0p',
      'no-scrub': false,
      ...extra,
    },
    { cwd: work, tmpdir: work, outDir: run.out },
  );
  return {
    params: plan.params,
    phases: plan.phases,
    injectStall: null,
    onXrun: null,
    channels: 2,
    format: 'S16_LE',
    roots: { procRoot: run.fake.procRoot, sysRoot: run.fake.sysRoot, bootRoot: run.fake.bootRoot },
    journalDir: run.journalDir,
    outDir: run.out,
    toolVersion: '0.0.0-test',
    machineId: () => 'test-machine',
    env: {},
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    interactive: false,
    progress: false,
  };
}

test('a session: phases run, kernel dumps ranked, xrun_debug set on --pcm then restored, bundle and event log written', async () => {
  const run = setup('plain');
  const handle = startSession(
    options(run),
    new AbortController().signal,
    deps(run, [...LOCKUP, ...LOCKUP]),
  );
  const events: SessionEvent[] = [];
  handle.events.on((e) => {
    events.push(e);
    if (e.type === 'capture-status')
      run.masksSeen.push(run.fake.readProc('asound/card0/pcm0p/xrun_debug').trim());
  });
  const { report } = await handle.outcome;

  assert.deepEqual(run.masksSeen, ['3'], 'xrun_debug set while the session ran');
  assert.equal(run.fake.readProc('asound/card0/pcm0p/xrun_debug').trim(), '0', 'restored');
  assert.deepEqual(
    report.phases.map((p) => p.name),
    ['idle', 'write'],
  );
  assert.equal(report.events.length, 2);
  assert.equal(report.offenders[0]?.function, 'test_unlock');
  assert.equal(report.offenders[0]?.count, 2);
  assert.equal(report.kernelCapture.source, 'kmsg');
  assert.equal(report.kernelCapture.mask, 3);
  assert.equal(run.contexts[0]?.command, 'session --capture auto', 'kprobe journal label');
  assert.equal(events.at(-1)?.type, 'session-end');
  const log = parseEventLog(readFileSync(join(run.out, 'events.ndjson'), 'utf8'));
  assert.equal(log.events.at(-1)?.type, 'session-end');
  assert.equal(log.events.filter((e) => e.type === 'kernel-event').length, 2);
  const bundle = await readBundle(join(run.out, 'bundle.json.gz'));
  assert.equal(bundle.kind, 'session');
  assert.equal(bundle.events.length, 2);
  assert.equal(bundle.params?.captureBackend, 'xrun_debug');
  assert.match(readFileSync(join(run.out, 'kernel.log'), 'utf8'), /test_unlock/);
  assert.ok(existsSync(join(run.out, 'report.txt')));
  assert.equal(existsSync(sessionJournalFile(run.journalDir, process.pid)), false, 'journal gone');
});

test('--until-xruns N: the plan stops once N kernel XRUNs of the stream were captured, and the report says so', async () => {
  // Two dumps of pcmC0D0p replayed at start; a 60 s idle phase that only the count can end.
  const run = setup('until');
  const handle = startSession(
    options(run, { phases: 'idle:60s', 'until-xruns': '2' }),
    new AbortController().signal,
    deps(run, [...LOCKUP, ...LOCKUP]),
  );
  const events: SessionEvent[] = [];
  handle.events.on((e) => events.push(e));
  const { report } = await handle.outcome;
  // The two reports can arrive before the phase starts (then it never runs) or during it (then
  // it is cut): either way no phase ran to its end.
  assert.ok(!events.some((e) => e.type === 'phase-end' && !e.cut), 'no phase ran its full 60 s');
  assert.equal(report.events.length, 2);
  assert.match(
    report.conclusion[0] ?? '',
    /^Stopped early \(2 kernel XRUN\(s\) of pcmC0D0p captured \(--until-xruns\)\)/,
  );
  assert.equal(run.fake.readProc('asound/card0/pcm0p/xrun_debug').trim(), '0', 'restored');
});

test('--until-xruns takes a whole number of at least 1', () => {
  for (const bad of ['0', '-3', '2.5', 'ten', ''])
    assert.throws(() => options(setup('until-bad'), { 'until-xruns': bad }), /--until-xruns/, bad);
});

test('--until-xruns above what the kernel reported: the plan runs to its end', async () => {
  const run = setup('until-not-reached');
  const handle = startSession(
    options(run, { phases: 'idle:400ms', 'until-xruns': '3' }),
    new AbortController().signal,
    deps(run, [...LOCKUP, ...LOCKUP]),
  );
  const events: SessionEvent[] = [];
  handle.events.on((e) => events.push(e));
  const { report } = await handle.outcome;
  const end = events.find((e) => e.type === 'phase-end');
  assert.ok(end && end.type === 'phase-end' && !end.cut, 'the phase ran to its end');
  assert.ok(!report.conclusion.some((c) => /Stopped early/.test(c)), report.conclusion.join('\n'));
});

test('another xrunhunt changing the same xrun_debug: the session refuses (as watch does) and changes nothing', async (t) => {
  const run = setup('live-other');
  const sleeper = spawn('sleep', ['30']);
  t.after(() => sleeper.kill('SIGKILL'));
  const pid = sleeper.pid!;
  const other = SettingsJournal.open(sessionJournalFile(run.journalDir, pid), {
    pid,
    startTicks: readProcessStartTicks(pid),
    startedAt: new Date().toISOString(),
    toolVersion: 't',
    command: 'watch --pcm pcmC0D0p',
    temporary: true,
  });
  other.record(run.fake.proc('asound/card0/pcm0p/xrun_debug'), '0', 'xrun_debug');
  const handle = startSession(options(run), new AbortController().signal, deps(run, LOCKUP));
  await assert.rejects(
    handle.outcome,
    new RegExp(`another xrunhunt \\(pid ${pid}, "watch --pcm pcmC0D0p"\\) is changing`),
  );
  assert.equal(run.fake.readProc('asound/card0/pcm0p/xrun_debug').trim(), '0', 'untouched');
  assert.equal(await handle.done.catch(() => 1), 1);
});

test('--capture none: xrunhunt reads no kernel log, but --mask still sets xrun_debug (as watch now does too)', async () => {
  const run = setup('capture-none');
  const handle = startSession(
    options(run, { capture: 'none' }),
    new AbortController().signal,
    deps(run, LOCKUP),
  );
  handle.events.on((e) => {
    if (e.type === 'capture-status')
      run.masksSeen.push(run.fake.readProc('asound/card0/pcm0p/xrun_debug').trim());
  });
  const { report } = await handle.outcome;
  assert.deepEqual(run.masksSeen, ['3'], 'xrun_debug set while the session ran');
  assert.equal(run.fake.readProc('asound/card0/pcm0p/xrun_debug').trim(), '0', 'restored');
  assert.equal(report.kernelCapture.mask, 3);
  assert.equal(report.kernelCapture.source, 'none');
  assert.equal(report.events.length, 0);
  assert.equal(run.contexts.length, 0, 'no capture selected');
  assert.ok(
    report.limitations.some((l) => /--capture none: .*journalctl -k \| xrunhunt analyze -/.test(l)),
    report.limitations.join('\n'),
  );
});

test('--recorder auto without tracefs: the session runs, its report says the recorder was off and why', async () => {
  const run = setup('recorder-auto');
  const handle = startSession(
    { ...options(run), recorder: 'auto' },
    new AbortController().signal,
    deps(run, LOCKUP),
  );
  const { report } = await handle.outcome;
  assert.equal(report.recorder?.enabled, false);
  assert.match(
    report.recorder?.reason ?? '',
    /^--recorder auto: off because (tracefs is not mounted|the flight recorder needs root)/,
  );
  assert.equal(report.recorder?.hits, 0);
  assert.equal(existsSync(join(run.out, 'recorder.txt')), false);
  assert.match(
    readFileSync(join(run.out, 'report.txt'), 'utf8'),
    /^ {2}flight recorder: off \(--recorder auto: off because /m,
  );
  assert.equal(report.offenders[0]?.function, 'test_unlock', 'the capture ran as without it');
});

test('--recorder on without tracefs: a clear error, and xrun_debug is put back', async () => {
  const run = setup('recorder-on');
  const handle = startSession(
    { ...options(run), recorder: 'on' },
    new AbortController().signal,
    deps(run, LOCKUP),
  );
  await assert.rejects(
    handle.outcome,
    /^XrunhuntError: --recorder on: (tracefs is not mounted|the flight recorder needs root)/,
  );
  assert.equal(run.fake.readProc('asound/card0/pcm0p/xrun_debug').trim(), '0', 'restored');
  assert.equal(await handle.done.catch(() => 1), 1);
});

test('--wakeup timer reaches the player (null device, timer-paced) and the report params; a bad value is a usage error', async () => {
  const run = setup('plain');
  const asked: PlaybackOptions[] = [];
  const d = deps(run, []);
  const handle = startSession(options(run, { wakeup: 'timer' }), new AbortController().signal, {
    ...d,
    startPlayback: (o, ctx) => {
      asked.push(o);
      return d.startPlayback(o, ctx);
    },
  });
  const { report } = await handle.outcome;
  assert.deepEqual(
    asked.map((o) => o.wakeup),
    ['timer'],
  );
  assert.equal(report.params.wakeup, 'timer');
  // The null PCM has no period-wakeup control: the fallback is a warning of the session.
  assert.ok(
    report.warnings.some((w) => w.startsWith('--wakeup timer: the NULL device cannot')),
    report.warnings.join('\n'),
  );
  assert.equal(options(setup('plain')).params.wakeup, 'period');
  assert.throws(() => options(setup('plain'), { wakeup: 'tsched' }), /invalid --wakeup "tsched"/);
});
