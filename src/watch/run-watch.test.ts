// The watch loop in process, on a fake /proc tree, with the kernel log replaced by a MOCK
// capture source that replays real XRUN dumps from the lab fixtures (this host has no sound
// card, so the kernel cannot print any). Everything else is real: discovery, xrun_debug
// journaled and restored in the fake tree, the live analyzer, the ranking, the report and
// the bundle.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  createFakeSystem,
  dummyCard,
  hdaCard,
  type FakeSystem,
} from '../../test/helpers/fake-proc.js';
import { readBundle } from '../bundle/index.js';
import { discoverAsound } from '../proc/index.js';
import type { CaptureContext } from '../kernel/source-contract.js';
import { kernelLogFixture, mockCapture } from '../run/mock-capture.js';
import { createLoadSampler } from './load-sampler.js';
import { findWatchTargets, startWatch, type WatchDeps, type WatchEvent } from './run-watch.js';

const LOCKUP = kernelLogFixture('lab-6.1-x86_64-lockup-test_unlock-irq.txt');
const EXT4 = kernelLogFixture('lab-6.1-x86_64-io-load-ext4-writeback-kernel.txt');

const status = (pid: number): string =>
  `state: RUNNING\nowner_pid   : ${pid}\ntrigger_time: 1.0\ntstamp      : 1.0\ndelay       : 256\navail       : 256\navail_max   : 300\n-----\nhw_ptr      : 1000\nappl_ptr    : 1256\n`;
const HW =
  'access: RW_INTERLEAVED\nformat: S16_LE\nsubformat: STD\nchannels: 2\nrate: 48000 (48000/1)\nperiod_size: 256\nbuffer_size: 512\n';

/** Reads a fake /proc file (undefined when it does not exist). */
const read = (p: string): string | undefined => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
};

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-run-watch-'));
const fakes: FakeSystem[] = [];
after(() => {
  fakes.forEach((f) => f.cleanup());
  rmSync(work, { recursive: true, force: true });
});

test('XRUNs put down to the player, ranked, --until-xruns stops, xrun_debug restored, bundle of kind watch', async () => {
  const dummy = dummyCard({}, 0);
  dummy.pcms[0]!.subs = [{ status: status(812) }];
  const hda = hdaCard({}, 1);
  hda.pcms[0]!.subs = [{ status: status(900) }];
  const fake = createFakeSystem({
    cards: [dummy, hda],
    proc: {
      '812/comm': 'aplay\n',
      '900/comm': 'pipewire\n',
      loadavg: '2.50 1.00 0.50 3/99 1000\n',
    },
  });
  fakes.push(fake);
  fake.writeProc('asound/card0/pcm0p/sub0/hw_params', HW);
  fake.writeProc('asound/card1/pcm0p/sub0/hw_params', HW);
  // Three lockup dumps on the player's PCM, then one ext4 dump on the other stream.
  const lines = [
    ...LOCKUP,
    ...LOCKUP,
    ...EXT4.map((l) => l.replace('pcmC0D0p', 'pcmC1D0p')),
    ...LOCKUP,
  ];
  let masksWhileWatching: string[] = [];
  const deps: WatchDeps = {
    now: () => process.hrtime.bigint(),
    discover: (root) => discoverAsound(root),
    read,
    selectCapture: async () => ({ source: mockCapture(lines), name: 'kmsg', skipped: [] }),
    loadSampler: (root) => createLoadSampler(root),
  };
  const roots = { procRoot: fake.procRoot, sysRoot: fake.sysRoot, bootRoot: fake.bootRoot };
  const targets = findWatchTargets({ pcms: [], roots }, deps);
  assert.deepEqual(
    targets.streams.map((s) => s.owner),
    ['aplay', 'pipewire'],
  );
  const human: string[] = [];
  const out = join(work, 'bundle');
  const handle = startWatch(
    {
      pcms: [],
      durationMs: 20_000,
      untilXruns: 3,
      mask: 3,
      capture: 'auto',
      roots,
      journalDir: join(work, 'journal'),
      outDir: out,
      toolVersion: '0.0.0-test',
      machineId: () => 'test-machine',
      scrub: true,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      interactive: false,
      progress: false,
      humanOut: (t) => human.push(t),
      rankEveryMs: 60_000,
    },
    targets,
    new AbortController().signal,
    deps,
  );
  const events: WatchEvent[] = [];
  handle.onEvent((e) => {
    events.push(e);
    if (e.type === 'capture-status')
      masksWhileWatching = [
        fake.readProc('asound/card0/pcm0p/xrun_debug').trim(),
        fake.readProc('asound/card1/pcm0p/xrun_debug').trim(),
      ];
  });
  const { report, summary, exitCode } = await handle.outcome;

  assert.deepEqual(masksWhileWatching, ['3', '3'], 'xrun_debug set on both watched PCMs');
  assert.equal(fake.readProc('asound/card0/pcm0p/xrun_debug').trim(), '0', 'restored');
  assert.equal(
    fake.readProc('asound/card1/pcm0p/xrun_debug').trim(),
    '1',
    'restored to its own original',
  );
  assert.equal(summary.stopReason, '3 xrun(s) reached (--until-xruns)');
  assert.equal(exitCode, 2);
  const player = summary.streams.find((s) => s.owner === 'aplay')!;
  const server = summary.streams.find((s) => s.owner === 'pipewire')!;
  assert.equal(player.xruns, 3);
  assert.equal(server.xruns, 1);
  assert.equal(summary.ranking.xruns, 4);
  assert.equal(report.offenders[0]?.function, 'test_unlock');
  assert.equal(report.offenders[0]?.count, 3);
  assert.equal(report.xruns.length, 4);
  assert.equal(summary.loadAtXruns.meanLoad1, 2.5);
  const xrunLines = human.filter((l) => / XRUN /.test(l));
  assert.equal(xrunLines.length, 4);
  assert.match(
    xrunLines[0]!,
    /^\d+\.\ds XRUN pcmC0D0p \(aplay, pid 812\): test_unlock \[test_lockup\] · load 2\.50/,
  );
  const ranking = events.filter((e) => e.type === 'ranking').at(-1);
  assert.ok(ranking?.type === 'ranking' && ranking.ranking.xruns === 4, 'a final ranking event');
  assert.equal(events.at(-1)?.type, 'watch-report');
  assert.ok(events.some((e) => e.type === 'session-end'));
  const bundle = await readBundle(join(out, 'bundle.json.gz'));
  assert.equal(bundle.kind, 'watch');
  assert.equal(bundle.events.length, 4);
  assert.equal(bundle.offenders[0]?.function, 'test_unlock');
  assert.match(
    readFileSync(join(out, 'report.txt'), 'utf8'),
    /Streams watched\n {2}pcmC0D0p \(aplay, pid 812\): 3 kernel XRUN/,
  );
});

/** A 300 ms watch of one aplay stream with `capture`; the masks seen while it ran. */
async function shortWatch(name: string, capture: string) {
  const dummy = dummyCard({}, 0);
  dummy.pcms[0]!.subs = [{ status: status(812) }];
  const fake = createFakeSystem({ cards: [dummy], proc: { '812/comm': 'aplay\n' } });
  fakes.push(fake);
  fake.writeProc('asound/card0/pcm0p/sub0/hw_params', HW);
  const contexts: (CaptureContext | undefined)[] = [];
  const deps: WatchDeps = {
    now: () => process.hrtime.bigint(),
    discover: (root) => discoverAsound(root),
    read,
    selectCapture: async (_c, _s, context) => {
      contexts.push(context);
      return { source: mockCapture([]), name: 'kmsg', skipped: [] };
    },
    loadSampler: (root) => createLoadSampler(root),
  };
  const roots = { procRoot: fake.procRoot, sysRoot: fake.sysRoot, bootRoot: fake.bootRoot };
  const handle = startWatch(
    {
      pcms: [],
      durationMs: 300,
      untilXruns: null,
      mask: 3,
      capture,
      roots,
      journalDir: join(work, `journal-${name}`),
      outDir: null,
      toolVersion: '0.0.0-test',
      machineId: () => 'test-machine',
      scrub: true,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      interactive: false,
      progress: false,
      humanOut: null,
      rankEveryMs: 60_000,
    },
    findWatchTargets({ pcms: [], roots }, deps),
    new AbortController().signal,
    deps,
  );
  const masksSeen: string[] = [];
  handle.onEvent((e) => {
    if (e.type === 'capture-status')
      masksSeen.push(fake.readProc('asound/card0/pcm0p/xrun_debug').trim());
  });
  const outcome = await handle.outcome;
  return {
    ...outcome,
    contexts,
    masksSeen,
    after: fake.readProc('asound/card0/pcm0p/xrun_debug').trim(),
  };
}

test('the kprobe journal of a watch is labelled watch (it said session), --duration stops it', async () => {
  const w = await shortWatch('label', 'auto');
  assert.equal(w.contexts[0]?.command, 'watch --capture auto');
  assert.equal(w.summary.stopReason, '--duration 0 s reached');
  assert.equal(w.exitCode, 0);
  assert.deepEqual(w.masksSeen, ['3']);
  assert.equal(w.after, '0', 'restored');
});

test('--capture none: --mask still sets xrun_debug (as session does; watch used to skip it)', async () => {
  const w = await shortWatch('capture-none', 'none');
  assert.equal(w.contexts.length, 0, 'no capture selected');
  assert.deepEqual(w.masksSeen, ['3']);
  assert.equal(w.report.kernelCapture.mask, 3);
  assert.equal(w.after, '0', 'restored');
  assert.ok(w.report.limitations.some((l) => /--capture none: /.test(l)));
});
