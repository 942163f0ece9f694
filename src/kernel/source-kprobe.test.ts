// The kprobe source's set-up and teardown against a MOCK tracefs: this host's kernel has no
// tracefs and no sound, so a small model of the kernel's rules stands in for it (the real
// thing runs in test/lab/kprobe-*.test.ts). The model enforces what platform-facts §5b
// measured: removing a probe that is still enabled or triggered is EBUSY, an instance with an
// open trace_pipe cannot be removed, and a truncating write to kprobe_events deletes every probe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendFileSync,
  readFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findJournals } from '../proc/index.js';
import type { SettingFileIo } from '../proc/index.js';
import { createKprobeSource, kprobePaths } from './source-kprobe.js';
import { STREAM_FETCH_ARGS } from './tracefs.js';

const STREAM_ARGS =
  process.arch === 'x64' ? STREAM_FETCH_ARGS : STREAM_FETCH_ARGS.replaceAll('%di', '$arg1');
import type { TracefsFolderOps } from './source-kprobe.js';

const errno = (code: string): Error => Object.assign(new Error(`${code} (mock kernel)`), { code });

/** MOCK: the kernel side of tracefs, as far as the kprobe source uses it. */
class MockTracefs implements SettingFileIo, TracefsFolderOps {
  readonly probes = new Map<string, string>();
  /** Probes defined by someone else (must survive everything xrunhunt does). */
  instance: { files: Map<string, string>; enabled: boolean; trigger: string | null } | null = null;
  pipeOpen = false;
  /** Refuse fetch args (an older kernel, another architecture). */
  refuseArgs = false;
  readonly ops: string[] = [];
  readonly pipeFile: string;
  constructor(
    readonly dir: string,
    readonly symbols: Set<string>,
  ) {
    this.pipeFile = join(dir, 'pipe-data');
    writeFileSync(this.pipeFile, '');
  }
  private get p() {
    return kprobePaths(this.dir);
  }
  /** kprobe_profile as the kernel would print it for the probe. */
  profileText = '';
  read(path: string): string {
    if (path === join(this.dir, 'kprobe_profile')) return this.profileText;
    if (path === this.p.kprobeEvents)
      return [...this.probes.entries()].map(([n, d]) => `p:${n} ${d}\n`).join('');
    const v = this.instance?.files.get(path);
    if (v === undefined) throw errno('ENOENT');
    return v;
  }
  write(path: string, value: string): void {
    this.ops.push(`write ${path.slice(this.dir.length)} ${value.trim()}`);
    if (path === this.p.kprobeEvents) {
      this.probes.clear(); // O_TRUNC: every probe is gone
      return;
    }
    const inst = this.instance;
    if (!inst) throw errno('ENOENT');
    if (path === this.p.enable) {
      if (!this.probes.has('xrunhunt/xrun')) throw errno('ENOENT');
      inst.enabled = value.trim() === '1';
      return;
    }
    if (path === this.p.trigger) throw new Error('the trigger must be appended in this test');
    if (!inst.files.has(path) && path !== this.p.filter && path !== this.p.traceMarker)
      throw errno('ENOENT');
    inst.files.set(path, value);
  }
  append(path: string, value: string): void {
    this.ops.push(`append ${path.slice(this.dir.length)} ${value.trim()}`);
    const v = value.trim();
    if (path === this.p.kprobeEvents) {
      const m = /^p:(\S+) (\S+)(.*)$/.exec(v);
      if (m) {
        if (!this.symbols.has(m[2]!)) throw errno('EINVAL');
        if (this.refuseArgs && m[3]!.includes('card=')) throw errno('EINVAL');
        if (this.probes.has(m[1]!)) throw errno('EEXIST');
        this.probes.set(m[1]!, `${m[2]!}${m[3]!}`);
        return;
      }
      const rm = /^-:(\S+)$/.exec(v);
      if (!rm) throw errno('EINVAL');
      if (!this.probes.has(rm[1]!)) throw errno('ENOENT');
      if (this.instance && (this.instance.enabled || this.instance.trigger)) throw errno('EBUSY');
      this.probes.delete(rm[1]!);
      return;
    }
    if (path === this.p.trigger) {
      if (!this.instance || !this.probes.has('xrunhunt/xrun')) throw errno('ENOENT');
      this.instance.trigger = v.startsWith('!') ? null : v;
      return;
    }
    throw errno('EINVAL');
  }
  removeDir(path: string): void {
    this.ops.push(`rmdir ${path.slice(this.dir.length)}`);
    if (path !== this.p.instance || !this.instance) throw errno('ENOENT');
    if (this.pipeOpen) throw errno('EBUSY');
    this.instance = null; // the kernel disables the instance's events and drops its triggers
  }
  mkdir(path: string): void {
    this.ops.push(`mkdir ${path.slice(this.dir.length)}`);
    if (path !== this.p.instance) throw errno('ENOENT');
    if (this.instance) throw errno('EEXIST');
    const p = this.p;
    this.instance = {
      files: new Map([
        [p.bufferSizeKb, '7 (expanded: 1408)\n'],
        [p.symOffset, '0\n'],
        [p.traceClock, '[local] global counter uptime perf mono mono_raw boot\n'],
      ]),
      enabled: false,
      trigger: null,
    };
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
    return this.instance === null && !this.probes.has('xrunhunt/xrun');
  }
}

function setup(symbols = ['__snd_pcm_xrun', 'snd_pcm_stop']) {
  const root = mkdtempSync(join(tmpdir(), 'xrunhunt-kprobe-'));
  const sys = join(root, 'sys');
  const tracefs = join(sys, 'kernel', 'tracing');
  mkdirSync(tracefs, { recursive: true });
  writeFileSync(join(tracefs, 'kprobe_events'), ''); // locateTracefs looks for it on disk
  const proc = join(root, 'proc');
  mkdirSync(proc);
  writeFileSync(
    join(proc, 'kallsyms'),
    [
      ...symbols.map((s, i) => `ffffffff8172e${i}d0 T ${s}`),
      'ffffffffc0200000 t test_lock\t[test_lockup]',
      'ffffffffc0200100 t test_unlock\t[test_lockup]',
    ].join('\n') + '\n',
  );
  writeFileSync(join(proc, 'modules'), 'test_lockup 16384 0 - Live 0xffffffffc0200000\n');
  mkdirSync(join(proc, 'asound'));
  writeFileSync(
    join(proc, 'asound', 'cards'),
    ' 0 [Dummy          ]: Dummy - Dummy\n                      Dummy 1\n 1 [Loopback       ]: Loopback - Loopback\n',
  );
  const journalDir = join(root, 'journal');
  const kernel = new MockTracefs(tracefs, new Set(symbols));
  const source = createKprobeSource({
    journalDir,
    toolVersion: 'test',
    sysRoot: sys,
    procRoot: proc,
    euid: 0,
    io: kernel,
    fs: kernel,
    sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
  });
  return {
    root,
    tracefs,
    journalDir,
    kernel,
    source,
    done: () => rmSync(root, { recursive: true, force: true }),
  };
}

test('start installs probe, instance, trigger, enable in that order; close undoes them in the kernel’s order', async () => {
  const t = setup();
  try {
    t.kernel.probes.set('someone/else', 'do_sys_open');
    await t.source.start(new AbortController().signal);
    const p = kprobePaths(t.tracefs);
    assert.equal(t.kernel.probes.get('xrunhunt/xrun'), `__snd_pcm_xrun ${STREAM_ARGS}`);
    assert.equal(t.kernel.instance?.trigger, 'stacktrace');
    assert.equal(t.kernel.instance?.enabled, true);
    assert.equal(t.kernel.instance?.files.get(p.bufferSizeKb), '4096');
    assert.equal(t.kernel.instance?.files.get(p.symOffset), '1');
    assert.equal(t.kernel.instance?.files.get(p.traceClock), 'mono');
    assert.equal(t.source.setup?.point.symbol, '__snd_pcm_xrun');
    // The journal holds the undo steps, oldest first = the reverse of the teardown order.
    const { journals } = findJournals(t.journalDir, { io: t.kernel });
    assert.equal(journals.length, 1);
    assert.deepEqual(
      journals[0]!.journal.entries.map((e) => [e.kind, e.path.slice(t.tracefs.length), e.original]),
      [
        ['append', '/kprobe_events', '-:xrunhunt/xrun'],
        ['rmdir', '/instances/xrunhunt', ''],
        ['append', '/instances/xrunhunt/events/xrunhunt/xrun/trigger', '!stacktrace'],
        ['value', '/instances/xrunhunt/events/xrunhunt/xrun/enable', '0'],
      ],
    );
    t.kernel.ops.length = 0;
    await t.source.close();
    assert.deepEqual(t.kernel.ops, [
      'write /instances/xrunhunt/events/xrunhunt/xrun/enable 0',
      'append /instances/xrunhunt/events/xrunhunt/xrun/trigger !stacktrace',
      'rmdir /instances/xrunhunt',
      'append /kprobe_events -:xrunhunt/xrun',
    ]);
    assert.ok(t.kernel.clean);
    assert.equal(t.kernel.probes.get('someone/else'), 'do_sys_open', 'other probes survive');
    assert.equal(existsSync(join(t.journalDir, `session-${process.pid}-kprobe.json`)), false);
    assert.deepEqual(t.source.restoreReport?.failed, []);
  } finally {
    t.done();
  }
});

test('after a kill -9 the journal alone removes the probe (the next run restores it)', async () => {
  const t = setup();
  try {
    await t.source.start(new AbortController().signal);
    // The process "dies": the kernel closes its trace_pipe, nothing else happens.
    t.kernel.pipeOpen = false;
    const { journals } = findJournals(t.journalDir, {
      io: t.kernel,
      startTicksOf: () => undefined,
    });
    assert.equal(journals.length, 1);
    assert.equal(journals[0]!.alive, false);
    const report = journals[0]!.journal.restore();
    assert.deepEqual(report.failed, []);
    assert.ok(t.kernel.clean, 'probe and instance removed');
    assert.ok(!t.kernel.ops.some((o) => o.startsWith('write /kprobe_events')), 'never truncated');
    await t.source.close(); // the dead run's own exit path finds nothing left to undo
  } finally {
    t.done();
  }
});

test('a live line stream: split reads joined, markers consumed, unloaded-module frames named', async () => {
  const t = setup();
  try {
    await t.source.start(new AbortController().signal);
    const lines: string[] = [];
    const reading = (async () => {
      for await (const l of t.source) lines.push(l.text);
    })();
    await new Promise((r) => setTimeout(r, 300)); // the module snapshot is taken while loaded
    appendFileSync(
      t.kernel.pipeFile,
      '  insmod-297 [000] d.s1.  92.385517: xrun: (__snd_pcm_xrun+0x0/0xc0)\n  insmod-297 [000] d.s1.  92.385520: <stack trace>\n => __snd_pc',
    );
    await new Promise((r) => setTimeout(r, 30));
    appendFileSync(
      t.kernel.pipeFile,
      'm_xrun+0x5/0xc0\n => 0xffffffffc020015d\nCPU:1 [LOST 3 EVENTS]\n',
    );
    const offset = t.source.measureClockOffset!();
    await new Promise((r) => setTimeout(r, 30));
    const marker = t.kernel.instance!.files.get(kprobePaths(t.tracefs).traceMarker)!;
    appendFileSync(
      t.kernel.pipeFile,
      `  node-1 [001] .....  93.000000: tracing_mark_write: ${marker}\n`,
    );
    const measured = await offset;
    assert.equal(measured?.method, 'marker');
    await t.source.close();
    await reading;
    assert.deepEqual(lines, [
      '  insmod-297 [000] d.s1.  92.385517: xrun: (__snd_pcm_xrun+0x0/0xc0)',
      '  insmod-297 [000] d.s1.  92.385520: <stack trace>',
      ' => __snd_pcm_xrun+0x5/0xc0',
      ' => test_unlock+0x5d/0x3f00 [test_lockup]',
    ]);
    assert.equal(t.source.lostMessages, 3);
    assert.ok(t.kernel.clean);
  } finally {
    t.done();
  }
});

test('fallback to snd_pcm_stop filtered on XRUN when __snd_pcm_xrun is missing', async () => {
  const t = setup(['snd_pcm_stop']);
  try {
    await t.source.start(new AbortController().signal);
    assert.equal(t.kernel.probes.get('xrunhunt/xrun'), `snd_pcm_stop state=%si:s32 ${STREAM_ARGS}`);
    assert.equal(t.kernel.instance?.trigger, 'stacktrace if state==4');
    assert.equal(t.kernel.instance?.files.get(kprobePaths(t.tracefs).filter), 'state==4');
    assert.ok(t.source.warnings.some((w) => w.includes('not __snd_pcm_xrun')));
    await t.source.close();
    assert.ok(t.kernel.clean);
  } finally {
    t.done();
  }
});

test('a refused probe leaves nothing behind and says why', async () => {
  const t = setup();
  try {
    t.kernel.symbols.delete('__snd_pcm_xrun'); // kallsyms lists it, the kernel refuses it (EINVAL)
    await assert.rejects(
      t.source.start(new AbortController().signal),
      /cannot write .*kprobe_events \(EINVAL\)/,
    );
    assert.ok(t.kernel.clean);
    assert.equal(existsSync(join(t.journalDir, `session-${process.pid}-kprobe.json`)), false);
  } finally {
    t.done();
  }
});

test('not root: a clear error before anything is touched', async () => {
  const t = setup();
  try {
    const s = createKprobeSource({
      journalDir: t.journalDir,
      toolVersion: 'test',
      euid: 1000,
      io: t.kernel,
      fs: t.kernel,
    });
    await assert.rejects(s.start(new AbortController().signal), /needs root/);
    assert.deepEqual(t.kernel.ops, []);
  } finally {
    t.done();
  }
});

test('a leftover xrunhunt probe without a journal is removed before installing', async () => {
  const t = setup();
  try {
    t.kernel.probes.set('xrunhunt/xrun', '__snd_pcm_xrun');
    t.kernel.mkdir(kprobePaths(t.tracefs).instance);
    t.kernel.instance!.enabled = true;
    t.kernel.instance!.trigger = 'stacktrace';
    await t.source.start(new AbortController().signal);
    assert.ok(t.source.warnings.some((w) => /left by an earlier run/.test(w)));
    assert.equal(t.kernel.instance?.enabled, true);
    await t.source.close();
    assert.ok(t.kernel.clean);
  } finally {
    t.done();
  }
});

test('stream fetch args: refused ones fall back to the plain probe; ones that miss the card id are dropped', async () => {
  const t = setup();
  try {
    t.kernel.refuseArgs = true;
    await t.source.start(new AbortController().signal);
    assert.equal(t.kernel.probes.get('xrunhunt/xrun'), '__snd_pcm_xrun');
    assert.ok(t.source.warnings.some((w) => /refused the stream fetch args/.test(w)));
    const lines: string[] = [];
    const reading = (async () => {
      for await (const l of t.source) lines.push(l.text);
    })();
    appendFileSync(
      t.kernel.pipeFile,
      [
        '  aplay-5 [000] d.h1.  10.000001: xrun: (__snd_pcm_xrun+0x0/0xc0) card=1 dev=0 sub=0 stream=0 cardid="Loopback"',
        '  aplay-5 [000] d.h1.  11.000001: xrun: (__snd_pcm_xrun+0x0/0xc0) card=0 dev=0 sub=0 stream=0 cardid="Loopback"',
        '',
      ].join('\n'),
    );
    await new Promise((r) => setTimeout(r, 100));
    await t.source.close();
    await reading;
    assert.deepEqual(lines, [
      '  aplay-5 [000] d.h1.  10.000001: xrun: (__snd_pcm_xrun+0x0/0xc0) card=1 dev=0 sub=0 stream=0 cardid="Loopback"',
      '  aplay-5 [000] d.h1.  11.000001: xrun: (__snd_pcm_xrun+0x0/0xc0)',
    ]);
    assert.ok(t.source.warnings.some((w) => /did not match \/proc\/asound\/cards/.test(w)));
  } finally {
    t.done();
  }
});

test('a module first caught without symbols (loading) is snapshotted at a later poll', async () => {
  const t = setup();
  try {
    const kallsyms = join(t.root, 'proc', 'kallsyms');
    const full = readFileSync(kallsyms, 'utf8');
    writeFileSync(kallsyms, full.replace(/^.*\[test_lockup\]\n/gm, ''));
    await t.source.start(new AbortController().signal);
    const lines: string[] = [];
    const reading = (async () => {
      for await (const l of t.source) lines.push(l.text);
    })();
    await new Promise((r) => setTimeout(r, 300)); // first poll: listed, no symbols yet
    writeFileSync(kallsyms, full);
    await new Promise((r) => setTimeout(r, 400)); // next poll takes the snapshot
    appendFileSync(t.kernel.pipeFile, ' => 0xffffffffc020015d\n');
    await new Promise((r) => setTimeout(r, 50));
    await t.source.close();
    await reading;
    assert.deepEqual(lines, [' => test_unlock+0x5d/0x3f00 [test_lockup]']);
  } finally {
    t.done();
  }
});

test('kprobe_profile at close: misses are reported, hits kept', async () => {
  const t = setup();
  try {
    await t.source.start(new AbortController().signal);
    t.kernel.profileText =
      '  someone_else                                       5               0\n  xrun                                              1174               3\n';
    await t.source.close();
    assert.deepEqual(t.source.profile, { hits: 1174, missed: 3 });
    assert.ok(t.source.warnings.some((w) => /skipped the kprobe 3 times of 1177/.test(w)));
    assert.ok(
      t.source.warnings.some((w) => /fired 1174 times but trace_pipe delivered 0 hits/.test(w)),
    );
  } finally {
    t.done();
  }
});
