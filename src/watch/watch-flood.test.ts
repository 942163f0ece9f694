// A flood of XRUN dumps through the real watch path: the kmsg source (src/kernel/source-kmsg.ts)
// with its reader loop, the kernel-capture probe, the live analyzer, the watch loop, the report
// and the bundle's kernel.log. Only the device is a MOCK: this host has no sound card and its
// kernel has no ALSA, so the kernel cannot print the dumps; the MOCK device hands out real
// lab dumps (test/fixtures/pipewire) as /dev/kmsg records, each becoming readable at its
// scheduled time, EAGAIN before, exactly as the real device does.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createFakeSystem, dummyCard } from '../../test/helpers/fake-proc.js';
import { createKmsgSource, type KmsgDevice } from '../kernel/source-kmsg.js';
import { discoverAsound } from '../proc/index.js';
import { createLoadSampler } from './load-sampler.js';
import { findWatchTargets, startWatch, type WatchDeps } from './run-watch.js';

/** The lab's four recorded dumps, each as its lines without the printk timestamp. */
function labDumps(): string[][] {
  const text = readFileSync(
    new URL('../../test/fixtures/pipewire/lab-timer-xrun-contexts.dmesg.txt', import.meta.url),
    'utf8',
  );
  const dumps: string[][] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('[')) continue;
    if (line.includes('XRUN: ')) dumps.push([]);
    dumps.at(-1)?.push(line.replace(/^\[\s*[\d.]+\] ?/, ''));
  }
  return dumps;
}

const errno = (code: string): Error => Object.assign(new Error(code), { code });

/**
 * MOCK /dev/kmsg: `count` dumps, one every `everyMs` after the first read (the backlog skip),
 * each printed in one go (all its records readable at once, as dump_stack prints them);
 * EAGAIN when caught up. A written line (the clock and stop markers) is logged after every
 * dump due by then, as the kernel appends it to its ring buffer.
 */
function floodingKmsgDevice(count: number, everyMs: number): KmsgDevice {
  const dumps = labDumps();
  let seq = 5000;
  let startMs: number | null = null;
  let released = 0; // dumps moved into `ring`
  const ring: string[] = [];
  let next = 0;
  const record = (usec: number, text: string): string => `4,${seq++},${usec},-;${text}\n`;
  const release = (): void => {
    const nowMs = performance.now();
    startMs ??= nowMs;
    while (released < count && startMs + (released + 1) * everyMs <= nowMs) {
      const usec = Math.round((startMs + (released + 1) * everyMs) * 1000);
      for (const text of dumps[released % dumps.length]!) ring.push(record(usec, text));
      released++;
    }
  };
  return {
    async read() {
      release();
      if (next >= ring.length) throw errno('EAGAIN');
      return ring[next++]!;
    },
    async write(text) {
      release();
      ring.push(record(Math.round(performance.now() * 1000), text.trimEnd()));
    },
    async close() {},
  };
}

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-watch-flood-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('a flood of XRUN dumps: watch counts every one and kernel.log ends with the last dump', async () => {
  // 400 dumps of ~42 records in 0.8 s (~21,000 records/s, 20x the lab's flood rate), all of
  // them before the stop at 3 s: whatever the host's load, the reader is still behind at the
  // stop or has caught up, and either way every dump must be counted.
  const dumps = 400;
  const everyMs = 2;
  const dummy = dummyCard({}, 0);
  dummy.pcms[0]!.subs = [
    {
      status:
        'state: RUNNING\nowner_pid   : 122\ntrigger_time: 1.0\ntstamp      : 1.0\ndelay       : 256\navail       : 256\navail_max   : 300\n-----\nhw_ptr      : 1000\nappl_ptr    : 1256\n',
    },
  ];
  const fake = createFakeSystem({
    cards: [dummy],
    proc: { '122/comm': 'pipewire\n', loadavg: '2.50 1.00 0.50 3/99 1000\n' },
  });
  after(() => fake.cleanup());
  fake.writeProc(
    'asound/card0/pcm0p/sub0/hw_params',
    'access: MMAP_INTERLEAVED\nformat: S16_LE\nsubformat: STD\nchannels: 2\nrate: 48000 (48000/1)\nperiod_size: 256\nbuffer_size: 16384\n',
  );
  const deps: WatchDeps = {
    now: () => process.hrtime.bigint(),
    discover: (root) => discoverAsound(root),
    read: (p) => {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return undefined;
      }
    },
    selectCapture: async (_c, signal) => {
      const source = createKmsgSource({ device: floodingKmsgDevice(dumps, everyMs) });
      await source.start(signal);
      return { source, name: 'kmsg', skipped: [] };
    },
    loadSampler: (root) => createLoadSampler(root),
  };
  const roots = { procRoot: fake.procRoot, sysRoot: fake.sysRoot, bootRoot: fake.bootRoot };
  const out = join(work, 'bundle');
  const handle = startWatch(
    {
      pcms: [],
      durationMs: 3000,
      untilXruns: null,
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
      humanOut: null,
      rankEveryMs: 1000,
    },
    findWatchTargets({ pcms: [], roots }, deps),
    new AbortController().signal,
    deps,
  );
  const { summary, report } = await handle.outcome;
  const warnings = report.warnings.join('\n');
  assert.equal(summary.streams[0]?.owner, 'pipewire');
  assert.equal(summary.streams[0]?.xruns, dumps, `every dump counted; warnings:\n${warnings}`);
  const log = readFileSync(join(out, 'kernel.log'), 'utf8').trimEnd().split('\n');
  assert.equal(log.filter((l) => l.includes('XRUN: pcmC0D0p')).length, dumps);
  const last = labDumps()[(dumps - 1) % 4]!;
  assert.ok(log.at(-1)!.endsWith(last.at(-1)!), `kernel.log ends with the last dump's last line`);
  assert.ok(!log.some((l) => l.includes('capture stop marker')), 'our stop marker is not logged');
});
