// Discovery of running streams against fake /proc trees (real files laid out like 6.1's).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import {
  createFakeSystem,
  dummyCard,
  hdaCard,
  type FakeSystem,
} from '../../test/helpers/fake-proc.js';
import { discoverAsound } from '../proc/index.js';
import { XrunhuntError } from '../errors.js';
import { chooseStreams, findSoundServers, scanStreams, streamLabel } from './running-streams.js';

const fakes: FakeSystem[] = [];
after(() => fakes.forEach((f) => f.cleanup()));
const read = (p: string): string | undefined => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
};
const status = (state: string, pid: number): string =>
  `state: ${state}\nowner_pid   : ${pid}\ntrigger_time: 1.0\ntstamp      : 1.0\ndelay       : 0\navail       : 0\navail_max   : 0\n-----\nhw_ptr      : 0\nappl_ptr    : 0\n`;

function system(): FakeSystem {
  const dummy = dummyCard();
  dummy.pcms[0]!.subs = [{}, { status: status('RUNNING', 812) }];
  dummy.pcms[1]!.subs = [{ status: status('PREPARED', 900) }];
  const hda = hdaCard();
  hda.pcms[0]!.subs = [{ status: status('RUNNING', 900) }];
  const f = createFakeSystem({
    cards: [dummy, hda],
    proc: {
      '812/comm': 'aplay\n',
      '900/comm': 'pipewire\n',
      '901/comm': 'wireplumber\n',
      '77/comm': 'jackd\n',
    },
  });
  f.writeProc(
    'asound/card1/pcm0p/sub0/hw_params',
    'access: MMAP_INTERLEAVED\nformat: S32_LE\nsubformat: STD\nchannels: 2\nrate: 48000 (48000/1)\nperiod_size: 1024\nbuffer_size: 2048\n',
  );
  fakes.push(f);
  return f;
}

test('running substreams with owners and configuration; open-but-idle ones kept apart', () => {
  const f = system();
  const scan = scanStreams(discoverAsound(f.procRoot), f.procRoot, read);
  assert.deepEqual(scan.running.map(streamLabel), [
    'pcmC0D0p sub1 (aplay, pid 812)',
    'pcmC1D0p (pipewire, pid 900)',
  ]);
  assert.deepEqual(
    scan.idle.map((w) => [streamLabel(w), w.status.state]),
    [['pcmC0D0c (pipewire, pid 900)', 'PREPARED']],
  );
  const pw = scan.running[1]!;
  assert.deepEqual(
    [pw.hw.periodFrames, pw.hw.bufferFrames, pw.hw.rateHz, pw.hw.format],
    [1024, 2048, 48000, 'S32_LE'],
  );
  assert.equal(Math.round(pw.bufferMs! * 10) / 10, 42.7);
  assert.equal(pw.xrunDebugPath, `${f.procRoot}/asound/card1/pcm0p/xrun_debug`);
  // The fake has no sw_params: assumed reported, with the reason.
  assert.equal(pw.kernel.reports, true);
  assert.equal(
    scan.running[0]!.hw.bufferFrames,
    undefined,
    'hw_params "closed" gives no configuration',
  );
});

test('--pcm narrows; a PCM that is only open, not running, is "nothing playing" with its state', () => {
  const f = system();
  const d = discoverAsound(f.procRoot);
  const scan = scanStreams(d, f.procRoot, read);
  const known = d.streams.map((s) => s.pcm);
  assert.deepEqual(
    chooseStreams(scan, ['pcmC1D0p'], f.procRoot, known).map((w) => w.owner),
    ['pipewire'],
  );
  assert.throws(
    () => chooseStreams(scan, ['pcmC0D0c'], f.procRoot, known),
    (e: unknown) =>
      e instanceof XrunhuntError &&
      e.message ===
        'nothing is playing on pcmC0D0c: open but not playing: pcmC0D0c (pipewire, pid 900) is PREPARED',
  );
});

test('sound servers are found by process name (not their session managers)', () => {
  const f = system();
  assert.deepEqual(
    findSoundServers(f.procRoot, (p) => readdirSync(p), read),
    [
      { pid: 77, comm: 'jackd' },
      { pid: 900, comm: 'pipewire' },
    ],
  );
  const empty = createFakeSystem({ cards: [dummyCard()], proc: { '77/comm': 'jackd\n' } });
  fakes.push(empty);
  const d = discoverAsound(empty.procRoot);
  assert.throws(
    () =>
      chooseStreams(
        scanStreams(d, empty.procRoot, read),
        [],
        empty.procRoot,
        d.streams.map((s) => s.pcm),
        [{ pid: 77, comm: 'jackd' }],
      ),
    /every substream is closed; jackd \(pid 77\) is running but holds no kernel PCM open/,
  );
});
