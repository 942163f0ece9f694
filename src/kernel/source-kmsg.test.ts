import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessSync, constants } from 'node:fs';
import {
  createKmsgSource,
  createSeqGapCounter,
  openKmsgDevice,
  parseKmsgHead,
  type KmsgDevice,
} from './source-kmsg.js';

const errno = (code: string): Error => Object.assign(new Error(code), { code });

/**
 * MOCK device: replays a script of records / errno codes the way /dev/kmsg returns them; a
 * written line is logged after the script, as the kernel appends it to its ring buffer.
 */
function mockKmsgDevice(script: (string | 'EAGAIN' | 'EPIPE')[]): KmsgDevice & {
  written: string[];
} {
  const written: string[] = [];
  let i = 0;
  let seq = 1_000_000;
  return {
    written,
    async read() {
      const step = script[i];
      if (step === undefined) throw errno('EAGAIN');
      i++;
      if (step === 'EAGAIN' || step === 'EPIPE') throw errno(step);
      return step;
    },
    async write(text) {
      written.push(text);
      script.push(`12,${seq++},999999,-;${text}\n`);
    },
    async close() {},
  };
}

test('parseKmsgHead reads priority, sequence and microseconds', () => {
  assert.deepEqual(parseKmsgHead('4,311,6790393,-; dump_stack_lvl+0x4c/0x63'), {
    priority: 4,
    seq: 311,
    usec: 6790393,
  });
  assert.deepEqual(parseKmsgHead('6,12,99,c,more;text')?.seq, 12);
  assert.equal(parseKmsgHead(' SUBSYSTEM=platform'), null);
  assert.equal(parseKmsgHead('[  1.0] not kmsg'), null);
});

test('sequence gaps count lost records; the first record only sets the base', () => {
  const c = createSeqGapCounter();
  assert.equal(c.observe(100), 0);
  assert.equal(c.observe(101), 0);
  assert.equal(c.observe(105), 3);
  assert.equal(c.observe(105), 0);
  assert.equal(c.lost, 3);
});

test('kmsg source skips the backlog, streams new records with dictionaries, counts losses', async () => {
  const dev = mockKmsgDevice([
    '6,1,100,-;old boot message\n',
    '6,2,200,-;old message\n',
    'EAGAIN', // end of backlog: start() returns here
    'EAGAIN',
    '3,3,300,-;snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0\n SUBSYSTEM=platform\n DEVICE=+platform:snd_dummy.0\n',
    'EPIPE',
    '4,9,400,-; dump_stack_lvl+0x4c/0x63\n',
  ]);
  let t = 0n;
  const src = createKmsgSource({ device: dev, now: () => (t += 1000n), sleep: async () => {} });
  const ac = new AbortController();
  await src.start(ac.signal);
  const lines: string[] = [];
  for await (const l of src) {
    lines.push(l.text);
    assert.ok(l.readNs > 0);
    if (lines.length === 4) await src.close();
  }
  assert.deepEqual(lines, [
    '3,3,300,-;snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0',
    ' SUBSYSTEM=platform',
    ' DEVICE=+platform:snd_dummy.0',
    '4,9,400,-; dump_stack_lvl+0x4c/0x63',
  ]);
  assert.equal(src.lostMessages, 5, 'records 4..8 were overwritten');
  assert.equal(src.name, 'kmsg');
});

test('a read error other than EAGAIN/EPIPE ends the stream with a warning', async () => {
  const dev = mockKmsgDevice(['EAGAIN']);
  const read = dev.read.bind(dev);
  let calls = 0;
  dev.read = async () => {
    calls++;
    if (calls > 1) throw errno('EIO');
    return read();
  };
  const src = createKmsgSource({ device: dev, sleep: async () => {} });
  await src.start(new AbortController().signal);
  const lines = [];
  for await (const l of src) lines.push(l);
  assert.equal(lines.length, 0);
  assert.match(src.warnings.join('\n'), /reading \/dev\/kmsg failed: EIO/);
});

let kmsgWritable = false;
try {
  accessSync('/dev/kmsg', constants.R_OK | constants.W_OK);
  kmsgWritable = true;
} catch {
  kmsgWritable = false;
}

test(
  'real /dev/kmsg: the clock marker comes back and aligns the clocks',
  { skip: kmsgWritable ? false : 'needs read+write access to /dev/kmsg (root)' },
  async () => {
    const ac = new AbortController();
    const src = createKmsgSource({ device: await openKmsgDevice() });
    await src.start(ac.signal);
    const offset = await src.measureClockOffset!();
    assert.ok(offset, 'marker was read back');
    assert.equal(offset.method, 'marker');
    // The write→read-back bracket is a syscall: well under 50 ms even on a busy 2-core box.
    assert.ok(offset.uncertaintyNs < 50e6, `uncertainty ${offset.uncertaintyNs} ns`);
    // On x86 the printk clock tracks CLOCK_MONOTONIC; allow 1 s for other clock sources.
    assert.ok(Math.abs(offset.offsetNs) < 1e9, `offset ${offset.offsetNs} ns`);
    ac.abort();
    await src.close();
    const seen = [];
    for await (const l of src) seen.push(l.text);
    assert.ok(seen.some((l) => l.includes('xrunhunt: clock marker')));
  },
);

test('close() drains what the kernel printed before the stop (a flood of dump records)', async () => {
  const flood = Array.from(
    { length: 20_000 },
    (_, i) => `4,${i + 2},${1000 + i},-; frame_${i}+0x1/0x2\n`,
  );
  const dev = mockKmsgDevice(['6,1,100,-;old\n', 'EAGAIN', ...flood]);
  let t = 0n;
  const src = createKmsgSource({ device: dev, now: () => (t += 1000n), sleep: async () => {} });
  await src.start(new AbortController().signal);
  // The session stops right away: every record already in the ring buffer must still arrive.
  const closing = src.close();
  let n = 0;
  let last = '';
  for await (const l of src) {
    n++;
    last = l.text;
  }
  await closing;
  assert.equal(n, 20_000);
  assert.equal(last, '4,20001,20999,-; frame_19999+0x1/0x2');
  assert.equal(src.lostMessages, 0);
});

test('close() reads up to its stop marker while the kernel keeps printing (a flood that never pauses)', async () => {
  // MOCK: 5,000 records are waiting at the stop; the kernel logs the marker after them and
  // then goes on printing dumps faster than we read (no EAGAIN ever comes).
  const backlog = 5000;
  let printed = 0;
  let seq = 2;
  let markerAt: number | null = null;
  const dev: KmsgDevice = {
    async read() {
      printed++;
      if (printed === 1) return '6,1,100,-;old\n';
      if (printed === 2) throw errno('EAGAIN'); // start(): end of the backlog
      if (markerAt !== null && printed === markerAt) return `12,${seq++},0,-;${written}\n`;
      return `4,${seq++},${seq},-; frame+0x1/0x2\n`;
    },
    async write(text) {
      written = text;
      markerAt = backlog + 3;
    },
    async close() {},
  };
  let written = '';
  const src = createKmsgSource({ device: dev, sleep: async () => {} });
  await src.start(new AbortController().signal);
  const started = Date.now();
  const closing = src.close();
  let n = 0;
  for await (const l of src) {
    assert.doesNotMatch(l.text, /capture stop marker/, 'the marker is not passed on');
    n++;
  }
  await closing;
  assert.equal(n, backlog, 'exactly the records printed before the stop');
  assert.ok(Date.now() - started < 10_000, 'the drain ends at the marker, not at its time limit');
  assert.deepEqual(src.warnings, []);
});

test('a drain that hits its time limit before the stop marker says what is missing', async () => {
  // MOCK: the kernel never logs the marker (the reader is hopelessly behind).
  let seq = 2;
  let reads = 0;
  const dev: KmsgDevice = {
    async read() {
      reads++;
      if (reads === 1) throw errno('EAGAIN');
      return `4,${seq++},${seq},-; frame+0x1/0x2\n`;
    },
    async write() {},
    async close() {},
  };
  let t = 0n;
  const src = createKmsgSource({
    device: dev,
    now: () => (t += 1_000_000n), // 1 ms per call
    sleep: async () => {},
    drainLimitMs: 500,
  });
  await src.start(new AbortController().signal);
  const closing = src.close();
  let n = 0;
  for await (const line of src) if (line.text) n++;
  await closing;
  assert.ok(n > 0 && n < 500, `${n} records read before the limit`);
  assert.match(src.warnings.join('\n'), /stopped reading the kernel log 1 s after the stop/);
  assert.match(src.warnings.join('\n'), /last part of the run is missing/);
});

test('a stop marker the kernel drops (printk.devkmsg=off) ends the drain once caught up, without a warning', async () => {
  // MOCK: writes succeed but are never logged; two records wait at the stop, then EAGAIN.
  const dev = mockKmsgDevice(['6,1,100,-;old\n', 'EAGAIN', '4,2,200,-;a\n', '4,3,300,-;b\n']);
  dev.write = async () => {};
  let t = 0n;
  const src = createKmsgSource({
    device: dev,
    now: () => (t += 1_000_000n),
    sleep: async () => {},
  });
  await src.start(new AbortController().signal);
  const closing = src.close();
  const lines: string[] = [];
  for await (const l of src) lines.push(l.text);
  await closing;
  assert.deepEqual(lines, ['4,2,200,-;a', '4,3,300,-;b']);
  assert.ok(
    t < 10_000_000_000n,
    `ended ${t / 1_000_000n} ms of fake time after the stop, not at the limit`,
  );
  assert.deepEqual(src.warnings, []);
});

test('the clock offset comes from the tightest of three marker brackets', async () => {
  // MOCK device and clock: each marker write waits `before` ms, is stamped by "printk" (the
  // kernel clock runs 250 ms behind CLOCK_MONOTONIC), then takes `after` ms to return. The
  // first bracket is stretched to 40 ms with the stamp at its start, as when the write waited
  // behind other work: its midpoint would be 20 ms off.
  let t = 10_000_000_000n; // CLOCK_MONOTONIC, ns
  const brackets = [
    { before: 0n, after: 40n },
    { before: 1n, after: 1n },
    { before: 3n, after: 2n },
  ];
  const pending: string[] = [];
  let seq = 10;
  let writes = 0;
  const dev: KmsgDevice = {
    async read() {
      const r = pending.shift();
      if (r === undefined) throw errno('EAGAIN');
      return r;
    },
    async write(text) {
      const b = brackets[writes++]!;
      t += b.before * 1_000_000n;
      const usec = (t - 250_000_000n) / 1000n;
      pending.push(`12,${seq++},${usec},-;${text}\n`);
      t += b.after * 1_000_000n;
    },
    async close() {},
  };
  const src = createKmsgSource({ device: dev, now: () => t, sleep: async () => {} });
  await src.start(new AbortController().signal);
  const offset = await src.measureClockOffset!();
  assert.ok(offset);
  assert.equal(writes, 3);
  // The 2 ms bracket: offset 250 ms, off by at most its half width.
  assert.ok(Math.abs(offset.offsetNs - 250e6) <= 1e6, `offset ${offset.offsetNs} ns`);
  assert.equal(offset.uncertaintyNs, 1e6 + 1000);
  await src.close();
});
