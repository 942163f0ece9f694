// The flight recorder's set-up and teardown against a MOCK tracefs (this host's kernel has no
// kprobe events and no sound; the real thing runs in test/lab/recorder-lab.test.ts). The model
// enforces the kernel's rules the recorder depends on: a kprobe still enabled or triggered in an
// instance cannot be removed (EBUSY), an instance with an open trace_pipe cannot be removed, a
// truncating write to kprobe_events deletes every probe, a trigger is only appended. It also
// checks, at every change, that the crash journal on disk already holds its undo step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import { findJournals, restoreJournals, sessionPartJournalFile } from '../proc/index.js';
import type { SettingFileIo } from '../proc/index.js';
import { createRecorderSource, recorderUnavailable } from './recorder-source.js';
import type { RecorderSourceOptions } from './recorder-source.js';
import {
  RECORDER_JOURNAL_PART,
  parseTraceLineHead,
  isRecorderHit,
  parseSoundIrqs,
  cpuMaskHex,
  recorderBufferKb,
  recorderDrainMs,
  recorderPaths,
  recorderProbeHits,
  addRingBufferStats,
} from './recorder-setup.js';
import type { TracefsFolderOps } from './source-kprobe.js';

const errno = (code: string): Error => Object.assign(new Error(`${code} (mock kernel)`), { code });

const STOCK_EVENTS = [
  'sched/sched_switch',
  'sched/sched_waking',
  'sched/sched_wakeup',
  'irq/irq_handler_entry',
  'irq/irq_handler_exit',
  'irq/softirq_entry',
  'irq/softirq_exit',
  'timer/hrtimer_expire_entry',
  'timer/hrtimer_expire_exit',
];
/** What the recorder enables of them: sched_wakeup only on a kernel without sched_waking. */
const RECORDED = STOCK_EVENTS.filter((e) => e !== 'sched/sched_wakeup');

interface MockInstance {
  settings: Map<string, string>;
  enabled: Set<string>;
  triggers: Map<string, string>;
  filters: Map<string, string>;
}

/** MOCK: the kernel side of tracefs, as far as the recorder uses it. */
class MockTracefs implements SettingFileIo, TracefsFolderOps {
  readonly probes = new Map<string, string>();
  instance: MockInstance | null = null;
  pipeOpen = false;
  /** Each change, with whether the journal on disk held its undo step when it was made. */
  readonly ops: string[] = [];
  readonly unjournaled: string[] = [];
  readonly pipeFile: string;
  readonly p: ReturnType<typeof recorderPaths>;
  constructor(
    readonly dir: string,
    readonly journalFile: string,
    readonly symbols: Set<string>,
    readonly events: Set<string>,
  ) {
    this.pipeFile = join(dirname(dir), 'pipe-data');
    writeFileSync(this.pipeFile, '');
    this.p = recorderPaths(dir);
  }
  private rel(path: string): string {
    return path.slice(this.dir.length);
  }
  /** `sys/event` of an event file of the instance, or null. */
  private eventOf(path: string): { key: string; file: string } | null {
    const m = new RegExp(`^${this.p.eventsDir}/([^/]+/[^/]+)/(enable|trigger|filter)$`).exec(path);
    return m ? { key: m[1]!, file: m[2]! } : null;
  }
  private hasEvent(key: string): boolean {
    return this.instance !== null && (this.events.has(key) || this.probes.has(key));
  }
  private change(op: string, undoPath: string | null): void {
    this.ops.push(op);
    if (undoPath === null) return;
    let journaled: string[] = [];
    try {
      const doc = JSON.parse(readFileSync(this.journalFile, 'utf8')) as {
        entries: { path: string }[];
      };
      journaled = doc.entries.map((e) => e.path);
    } catch {
      journaled = [];
    }
    if (!journaled.includes(undoPath)) this.unjournaled.push(op);
  }
  read(path: string): string {
    if (path === this.p.kprobeEvents)
      return [...this.probes.entries()].map(([n, d]) => `p:${n} ${d}\n`).join('');
    const ev = this.eventOf(path);
    if (ev) {
      if (!this.hasEvent(ev.key)) throw errno('ENOENT');
      if (ev.file === 'enable') return this.instance!.enabled.has(ev.key) ? '1\n' : '0\n';
      if (ev.file === 'trigger') return this.instance!.triggers.get(ev.key) ?? '';
      return this.instance!.filters.get(ev.key) ?? 'none\n';
    }
    const v = this.instance?.settings.get(path);
    if (v === undefined) throw errno('ENOENT');
    return v;
  }
  write(path: string, value: string): void {
    const v = value.trim();
    if (path === this.p.kprobeEvents) {
      this.change(`write /kprobe_events ${v}`, null);
      this.probes.clear(); // O_TRUNC: every probe is gone
      return;
    }
    const ev = this.eventOf(path);
    if (ev) {
      if (!this.hasEvent(ev.key)) throw errno('ENOENT');
      if (ev.file === 'trigger') throw new Error('a trigger must be appended');
      if (ev.file === 'filter') {
        this.instance!.filters.set(ev.key, v);
        this.change(`filter ${ev.key} ${v}`, null);
        return;
      }
      this.change(`enable ${ev.key} ${v}`, v === '1' ? path : null);
      if (v === '1') this.instance!.enabled.add(ev.key);
      else this.instance!.enabled.delete(ev.key);
      return;
    }
    if (!this.instance?.settings.has(path)) throw errno('ENOENT');
    this.instance.settings.set(path, v);
    this.change(`set ${this.rel(path)} ${v}`, null);
  }
  append(path: string, value: string): void {
    const v = value.trim();
    if (path === this.p.kprobeEvents) {
      const m = /^p:(\S+) (\S+)(.*)$/.exec(v);
      if (m) {
        if (!this.symbols.has(m[2]!)) throw errno('EINVAL');
        if (this.probes.has(m[1]!)) throw errno('EEXIST');
        this.change(`probe+ ${v}`, path);
        this.probes.set(m[1]!, `${m[2]!}${m[3]!}`);
        return;
      }
      const rm = /^-:(\S+)$/.exec(v);
      if (!rm) throw errno('EINVAL');
      if (!this.probes.has(rm[1]!)) throw errno('ENOENT');
      const i = this.instance;
      if (i && (i.enabled.has(rm[1]!) || i.triggers.has(rm[1]!))) throw errno('EBUSY');
      this.change(`probe- ${rm[1]!}`, null);
      this.probes.delete(rm[1]!);
      return;
    }
    const ev = this.eventOf(path);
    if (!ev || ev.file !== 'trigger' || !this.hasEvent(ev.key)) throw errno('ENOENT');
    if (v.startsWith('!')) {
      this.change(`trigger- ${ev.key}`, null);
      this.instance!.triggers.delete(ev.key);
      return;
    }
    if (!v.startsWith('stacktrace')) throw errno('EINVAL');
    this.change(`trigger+ ${ev.key} ${v}`, path);
    this.instance!.triggers.set(ev.key, v);
  }
  removeDir(path: string): void {
    if (path !== this.p.instance || !this.instance) throw errno('ENOENT');
    if (this.pipeOpen) throw errno('EBUSY');
    this.change('rmdir instance', null);
    this.instance = null; // the kernel disables the instance's events and drops its triggers
    rmSync(path, { recursive: true, force: true });
  }
  mkdir(path: string): void {
    if (path !== this.p.instance) throw errno('ENOENT');
    if (this.instance) throw errno('EEXIST');
    this.change('mkdir instance', path);
    const p = this.p;
    this.instance = {
      settings: new Map([
        [p.bufferSizeKb, '7 (expanded: 1408)'],
        [p.traceClock, '[local] global counter uptime perf mono mono_raw boot'],
        [p.symOffset, '0'],
        [p.cpumask, 'ff'],
        [p.tracingOn, '1'],
      ]),
      enabled: new Set(),
      triggers: new Map(),
      filters: new Map(),
    };
    // Mirrored on disk so the journal's trust check can resolve the paths (realpath).
    for (const key of [...this.events, ...this.probes.keys()]) {
      const d = join(p.eventsDir, key);
      mkdirSync(d, { recursive: true });
      for (const f of ['enable', 'trigger']) writeFileSync(join(d, f), '');
    }
  }
  openPipe(path: string): number {
    if (path !== this.p.tracePipe || !this.instance) throw errno('ENOENT');
    this.pipeOpen = true;
    return openSync(this.pipeFile, 'r');
  }
  closePipe(fd: number): void {
    this.pipeOpen = false;
    closeSync(fd);
  }
  get clean(): boolean {
    return this.instance === null && !this.probes.has('xrunhunt_rec/xrun');
  }
}

function setup(
  o: {
    symbols?: string[];
    events?: string[];
    kprobeEvents?: boolean;
    interrupts?: string;
    extra?: Partial<RecorderSourceOptions>;
  } = {},
) {
  const root = mkdtempSync(join(tmpdir(), 'xrunhunt-recorder-'));
  const sys = join(root, 'sys');
  const tracefs = join(sys, 'kernel', 'tracing');
  mkdirSync(tracefs, { recursive: true });
  writeFileSync(join(tracefs, 'trace'), '');
  if (o.kprobeEvents !== false) writeFileSync(join(tracefs, 'kprobe_events'), '');
  const proc = join(root, 'proc');
  mkdirSync(proc);
  const symbols = o.symbols ?? ['__snd_pcm_xrun', 'snd_pcm_stop'];
  writeFileSync(
    join(proc, 'kallsyms'),
    symbols.map((s, i) => `ffffffff8172e${i}d0 T ${s}\t[snd_pcm]`).join('\n') + '\n',
  );
  writeFileSync(
    join(proc, 'interrupts'),
    o.interrupts ??
      '           CPU0       CPU1\n 25:   100  20  PCI-MSI 49152-edge  virtio0-requests\n 33:   13   15   PCI-MSI 81920-edge      snd_hda_intel:card0\nNMI:   0   0   Non-maskable interrupts\n',
  );
  const journalDir = join(root, 'journal');
  const journalFile = sessionPartJournalFile(journalDir, process.pid, RECORDER_JOURNAL_PART);
  const kernel = new MockTracefs(
    tracefs,
    journalFile,
    new Set(symbols),
    new Set(o.events ?? STOCK_EVENTS),
  );
  if (o.kprobeEvents === false)
    kernel.read = ((orig) => (path: string) => {
      if (path === kernel.p.kprobeEvents) throw errno('ENOENT');
      return orig(path);
    })(kernel.read.bind(kernel));
  const lines: string[] = [];
  const source = createRecorderSource({
    journalDir,
    toolVersion: 'test',
    sysRoot: sys,
    procRoot: proc,
    euid: 0,
    arch: 'x64',
    io: kernel,
    fs: kernel,
    onLine: (l) => lines.push(l),
    sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
    ...o.extra,
  });
  return {
    root,
    sys,
    proc,
    tracefs,
    journalDir,
    journalFile,
    kernel,
    source,
    lines,
    done: () => rmSync(root, { recursive: true, force: true }),
  };
}

test('start journals every change before making it, in the order probe, instance, events, triggers', async () => {
  const t = setup();
  try {
    t.kernel.probes.set('xrunhunt/xrun', '__snd_pcm_xrun'); // the kprobe backend's, beside it
    const s = await t.source.start();
    assert.deepEqual(t.kernel.unjournaled, [], 'every change had its undo step on disk first');
    assert.deepEqual(t.kernel.ops, [
      'probe+ p:xrunhunt_rec/xrun __snd_pcm_xrun',
      'mkdir instance',
      'set /instances/xrunhunt-recorder/buffer_size_kb 2048',
      'set /instances/xrunhunt-recorder/trace_clock mono',
      'set /instances/xrunhunt-recorder/options/sym-offset 1',
      ...RECORDED.map((e) => `enable ${e} 1`),
      'enable xrunhunt_rec/xrun 1',
      'trigger+ xrunhunt_rec/xrun stacktrace',
      'trigger+ irq/irq_handler_entry stacktrace if irq==33',
    ]);
    assert.deepEqual(s.events, [...RECORDED.map((e) => e.replace('/', ':')), 'xrunhunt_rec:xrun']);
    assert.deepEqual(s.irqs, [{ irq: 33, name: 'snd_hda_intel:card0' }]);
    assert.equal(s.probe, 'p:xrunhunt_rec/xrun __snd_pcm_xrun');
    const { journals } = findJournals(t.journalDir, { io: t.kernel });
    assert.deepEqual(
      journals[0]!.journal.entries.map((e) => [e.kind, e.path.slice(t.tracefs.length), e.original]),
      [
        ['append', '/kprobe_events', '-:xrunhunt_rec/xrun'],
        ['rmdir', '/instances/xrunhunt-recorder', ''],
        ...RECORDED.map((e) => ['value', `/instances/xrunhunt-recorder/events/${e}/enable`, '0']),
        ['value', '/instances/xrunhunt-recorder/events/xrunhunt_rec/xrun/enable', '0'],
        ['append', '/instances/xrunhunt-recorder/events/xrunhunt_rec/xrun/trigger', '!stacktrace'],
        [
          'append',
          '/instances/xrunhunt-recorder/events/irq/irq_handler_entry/trigger',
          '!stacktrace',
        ],
      ],
    );
    await t.source.close();
  } finally {
    t.done();
  }
});

test('close undoes it in the kernel’s order: triggers, events, instance, probe; other probes survive', async () => {
  const t = setup();
  try {
    t.kernel.probes.set('xrunhunt/xrun', '__snd_pcm_xrun');
    t.kernel.probes.set('someone/else', 'do_sys_open');
    await t.source.start();
    t.kernel.ops.length = 0;
    await t.source.close();
    assert.deepEqual(t.kernel.ops, [
      // Recording stops first (no new hits, nothing new written), the backlog is drained …
      'enable xrunhunt_rec/xrun 0',
      'set /instances/xrunhunt-recorder/tracing_on 0',
      // … then the teardown.
      'trigger- irq/irq_handler_entry',
      'trigger- xrunhunt_rec/xrun',
      'enable xrunhunt_rec/xrun 0',
      ...[...RECORDED].reverse().map((e) => `enable ${e} 0`),
      'rmdir instance',
      'probe- xrunhunt_rec/xrun',
    ]);
    assert.ok(t.kernel.clean);
    assert.deepEqual([...t.kernel.probes.keys()], ['xrunhunt/xrun', 'someone/else']);
    assert.equal(existsSync(t.journalFile), false);
    assert.deepEqual(t.source.restoreReport?.failed, []);
    await t.source.close(); // twice is harmless
  } finally {
    t.done();
  }
});

test('after a kill -9 the next start restores the journal through the trust checks', async () => {
  const t = setup();
  try {
    await t.source.start();
    // The process "dies": the kernel closes its trace_pipe; its exit handler never runs.
    t.kernel.pipeOpen = false;
    const out = await restoreJournals([t.journalDir], {
      roots: { procRoot: t.proc, sysRoot: t.sys },
      includeManual: false,
      command: 'test',
      deps: { io: t.kernel, startTicksOf: () => undefined },
    });
    assert.deepEqual(out.refused, [], 'journal-trust knows every recorder entry');
    assert.equal(out.restored.length, 1);
    assert.deepEqual(out.restored[0]!.report.failed, []);
    assert.ok(t.kernel.clean, 'instance and probe removed');
    assert.ok(!t.kernel.ops.some((o) => o.startsWith('write /kprobe_events')), 'never truncated');
    await t.source.close(); // the dead run's own exit path finds nothing left to undo
  } finally {
    t.done();
  }
});

test('a leftover instance and probe without a journal are removed before installing', async () => {
  const t = setup();
  try {
    await t.source.start();
    t.kernel.pipeOpen = false;
    rmSync(t.journalDir, { recursive: true, force: true }); // e.g. a wiped /var/lib
    const again = setup();
    try {
      // Same mock kernel state, a fresh source.
      const lines: string[] = [];
      const src = createRecorderSource({
        journalDir: again.journalDir,
        toolVersion: 'test',
        sysRoot: t.sys,
        procRoot: t.proc,
        euid: 0,
        arch: 'x64',
        io: t.kernel,
        fs: t.kernel,
        onLine: (l) => lines.push(l),
      });
      await src.start();
      assert.ok(src.warnings.some((w) => /left by an earlier run/.test(w)));
      assert.deepEqual(
        src.warnings.filter((w) => /failed/.test(w)),
        [],
      );
      await src.close();
      assert.ok(t.kernel.clean);
      await t.source.close(); // the first run's reader stops; its journal is gone, nothing to undo
    } finally {
      again.done();
    }
  } finally {
    t.done();
  }
});

test('events the kernel lacks are skipped and named; snd_pcm_stop is the fallback with its filter', async () => {
  const t = setup({
    symbols: ['snd_pcm_stop'],
    events: STOCK_EVENTS.filter((e) => !e.startsWith('timer/')),
    extra: { cpus: [0, 1] },
  });
  try {
    const s = await t.source.start();
    assert.deepEqual(s.skipped, [
      'timer:hrtimer_expire_entry (not in this kernel)',
      'timer:hrtimer_expire_exit (not in this kernel)',
    ]);
    assert.equal(t.kernel.probes.get('xrunhunt_rec/xrun'), 'snd_pcm_stop state=%si:s32');
    assert.equal(t.kernel.instance?.filters.get('xrunhunt_rec/xrun'), 'state==4');
    assert.equal(t.kernel.instance?.triggers.get('xrunhunt_rec/xrun'), 'stacktrace if state==4');
    assert.equal(t.kernel.instance?.settings.get(t.kernel.p.cpumask), '3');
    assert.ok(t.source.warnings.some((w) => w.includes('skipped timer:hrtimer_expire_entry')));
    await t.source.close();
    assert.ok(t.kernel.clean);
  } finally {
    t.done();
  }
});

test('sched_wakeup is the fallback: recorded only on a kernel without sched_waking', async () => {
  const t = setup({ events: STOCK_EVENTS.filter((e) => e !== 'sched/sched_waking') });
  try {
    const s = await t.source.start();
    assert.ok(s.events.includes('sched:sched_wakeup'), s.events.join(', '));
    assert.ok(!s.events.includes('sched:sched_waking'));
    assert.deepEqual(s.skipped, ['sched:sched_waking (not in this kernel)']);
    await t.source.close();
  } finally {
    t.done();
  }
});

test('refuses clearly: not root, no tracefs, lockdown, no xrun symbol; nothing is left behind', async () => {
  const notRoot = setup({ extra: { euid: 1000 } });
  try {
    await assert.rejects(notRoot.source.start(), (e: unknown) => {
      assert.ok(e instanceof XrunhuntError);
      assert.equal(e.code, 'permission');
      assert.match(e.message, /needs root/);
      assert.match(e.hint ?? '', /sudo|--recorder off/);
      return true;
    });
    assert.ok(notRoot.kernel.clean);
  } finally {
    notRoot.done();
  }
  const noKprobes = setup({ kprobeEvents: false });
  try {
    await assert.rejects(
      noKprobes.source.start(),
      /no kprobe_events \(the kernel lacks CONFIG_KPROBE_EVENTS\)/,
    );
    assert.equal(
      recorderUnavailable({ sysRoot: noKprobes.sys, euid: 0 })?.includes('kprobe_events'),
      true,
    );
    assert.equal(
      recorderUnavailable({ sysRoot: noKprobes.sys, euid: 0, xrunProbe: 'optional' }),
      null,
    );
  } finally {
    noKprobes.done();
  }
  const locked = setup();
  try {
    mkdirSync(join(locked.sys, 'kernel', 'security'));
    writeFileSync(
      join(locked.sys, 'kernel', 'security', 'lockdown'),
      'none integrity [confidentiality]\n',
    );
    await assert.rejects(locked.source.start(), /locked down \(confidentiality\)/);
    assert.ok(locked.kernel.clean);
  } finally {
    locked.done();
  }
  const noSound = setup({ symbols: [] });
  try {
    await assert.rejects(noSound.source.start(), (e: unknown) => {
      assert.ok(e instanceof XrunhuntError);
      assert.match(e.message, /neither __snd_pcm_xrun nor snd_pcm_stop/);
      return true;
    });
    assert.ok(noSound.kernel.clean);
    assert.deepEqual(
      readdirSync(noSound.root).includes('journal') ? readdirSync(noSound.journalDir) : [],
      [],
    );
  } finally {
    noSound.done();
  }
});

test('optional probe mode (the benchmark on a kernel without kprobe events) records events alone', async () => {
  const t = setup({ kprobeEvents: false, extra: { xrunProbe: 'optional' } });
  try {
    const s = await t.source.start();
    assert.equal(s.probe, null);
    assert.deepEqual(s.skipped, ['xrunhunt_rec:xrun (no kprobe_events on this kernel)']);
    assert.equal(s.events.length, RECORDED.length);
    await t.source.close();
    assert.equal(t.kernel.instance, null);
  } finally {
    t.done();
  }
});

test('trace_pipe lines reach onLine whole, with lines, lost events and bytes counted', async () => {
  const t = setup();
  try {
    await t.source.start();
    const a =
      ' irq/33-snd_hda_-159     [000] D..1.     8.572607: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])\n irq/33-snd_hda_-159     [000] D..1.     8.573589: <stack trace>\n => __snd_pc';
    const b = 'm_xrun+0x5/0xc0 [snd_pcm]\nCPU:1 [LOST 42 EVENTS]\n';
    appendFileSync(t.kernel.pipeFile, a);
    await new Promise((r) => setTimeout(r, 40));
    appendFileSync(t.kernel.pipeFile, b);
    await new Promise((r) => setTimeout(r, 40));
    await t.source.close();
    assert.deepEqual(t.lines, [
      ' irq/33-snd_hda_-159     [000] D..1.     8.572607: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])',
      ' irq/33-snd_hda_-159     [000] D..1.     8.573589: <stack trace>',
      ' => __snd_pcm_xrun+0x5/0xc0 [snd_pcm]',
      'CPU:1 [LOST 42 EVENTS]',
    ]);
    const { maxLagSeconds, lagAtStopSeconds, ...rest } = t.source.counts;
    assert.deepEqual(rest, {
      lines: 4,
      lostEvents: 42,
      droppedLines: 0,
      bytes: Buffer.byteLength(a + b),
      probeHits: null, // the mock has no kprobe_profile
      ringLoss: null, // nor per_cpu stats
      drainedLines: 0, // everything was read before close
      drainEmptied: true,
    });
    // The lines' times (8.57 s) are far behind this host's monotonic clock: a lag, not a crash.
    assert.ok(maxLagSeconds > 0 && lagAtStopSeconds === maxLagSeconds);
  } finally {
    t.done();
  }
});

test('close drains what the kernel wrote before recording stopped: a backlog is delivered, not dropped', async () => {
  const t = setup();
  try {
    await t.source.start();
    // The reader is in its poll sleep; these lines are in the "buffer" when close() starts.
    const hit =
      ' irq/33-snd_hda_-159     [000] D..1.     8.572607: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])\n';
    appendFileSync(t.kernel.pipeFile, hit.repeat(500));
    await t.source.close();
    assert.equal(t.lines.length, 500);
    assert.equal(t.source.counts.drainedLines, 500);
    assert.equal(t.source.counts.drainEmptied, true);
    assert.equal(t.kernel.instance, null, 'torn down after the drain');
  } finally {
    t.done();
  }
});

test('pure helpers: line heads, recorder hits, sound IRQs, CPU masks, buffer sizing', () => {
  const hit =
    ' irq/33-snd_hda_-159     [000] D..1.     8.572607: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])';
  const head = parseTraceLineHead(hit);
  assert.deepEqual(head, { cpu: 0, ts: 8.572607, name: 'xrun' });
  assert.equal(isRecorderHit(hit, head), true);
  const sw =
    '          <idle>-0       [001] d..2.     7.344603: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ksoftirqd/1 next_pid=21 next_prio=120';
  assert.deepEqual(parseTraceLineHead(sw), { cpu: 1, ts: 7.344603, name: 'sched_switch' });
  assert.equal(isRecorderHit(sw, parseTraceLineHead(sw)), false);
  const mark = '  node-1 [001] .....  93.000000: tracing_mark_write+0xdd/0x240: hello';
  assert.equal(parseTraceLineHead(mark)?.name, 'tracing_mark_write');
  assert.equal(parseTraceLineHead(' => __snd_pcm_xrun+0x5/0xc0'), null);
  // A comm that looks like a CPU column, a line without the flags column, and non-events.
  assert.deepEqual(
    parseTraceLineHead('  my[1] job-12    [001] d..2.  5.250000: sched_switch: prev_comm=x'),
    { cpu: 1, ts: 5.25, name: 'sched_switch' },
  );
  assert.deepEqual(parseTraceLineHead('cat-9 [003] 12.000001: softirq_entry: vec=1'), {
    cpu: 3,
    ts: 12.000001,
    name: 'softirq_entry',
  });
  assert.equal(parseTraceLineHead('CPU:1 [LOST 42 EVENTS]'), null);
  assert.equal(parseTraceLineHead('cat-9 [003] d..2. 12: no fraction'), null);
  assert.deepEqual(
    parseTraceLineHead(' irq/33-snd_hda_-159     [000] D..1.     8.573589: <stack trace>'),
    {
      cpu: 0,
      ts: 8.573589,
      name: '<stack trace>',
    },
  );
  assert.equal(parseTraceLineHead('CPU:1 [LOST 3 EVENTS]'), null);
  assert.deepEqual(
    parseSoundIrqs(
      ' 16:  1  2  IO-APIC 16-fasteoi   uhci_hcd:usb3, snd_hda_intel:card1\n 33: 1 2 PCI-MSI edge snd_hda_intel:card0\n 40: 0 0 PCI-MSI edge nvme0q0\n',
    ),
    [
      { irq: 16, name: 'snd_hda_intel:card1' },
      { irq: 33, name: 'snd_hda_intel:card0' },
    ],
  );
  assert.equal(cpuMaskHex([0, 1]), '3');
  assert.equal(cpuMaskHex([2]), '4');
  assert.equal(cpuMaskHex([0, 35]), '8,00000001');
  assert.equal(recorderBufferKb(8000, 2), 1280);
  assert.equal(recorderBufferKb(10, 1), 256);
  // The drain at close: 2 × lag + 5 s, within 10–60 s.
  assert.equal(recorderDrainMs(null), 10_000);
  assert.equal(recorderDrainMs(20.6), 46_200);
  assert.equal(recorderDrainMs(120), 60_000);
  // Two probes named xrun: the recorder's is the second in both lists.
  const events = 'p:xrunhunt/xrun __snd_pcm_xrun\np:xrunhunt_rec/xrun __snd_pcm_xrun\n';
  const profile =
    '  xrun                      923               0\n  xrun                      920               1\n';
  assert.equal(recorderProbeHits(events, profile), 920);
  assert.equal(recorderProbeHits('p:xrunhunt_rec/xrun __snd_pcm_xrun\n', '  xrun  7  0\n'), 7);
  assert.equal(recorderProbeHits(events, '  xrun  7  0\n'), null, 'lists disagree: unknown');
  assert.deepEqual(
    addRingBufferStats(
      'entries: 5\noverrun: 3\ncommit overrun: 1\nbytes: 100\ndropped events: 2\n',
      {
        overrun: 1,
        commitOverrun: 0,
        dropped: 0,
      },
    ),
    { overrun: 4, commitOverrun: 1, dropped: 2 },
  );
});
