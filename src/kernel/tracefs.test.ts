import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  XRUN_PROBE_POINTS,
  chooseProbePoint,
  explainKprobeFailure,
  findTextSymbols,
  kprobeDefinition,
  kprobeRemoval,
  moduleSymbolsFromKallsyms,
  parseKprobeBlacklist,
  parseKprobeList,
  parseLockdown,
  parseLostEvents,
  parseKprobeProfile,
  parseProcModules,
  parseTraceMarker,
  resolveRawFrameLine,
  stacktraceTrigger,
} from './tracefs.js';

// Lines in the shape of the lab's 6.1 /proc/kallsyms (snd-pcm built in; test_lockup a module).
const KALLSYMS = [
  'ffffffff8172e5d0 T __snd_pcm_xrun',
  'ffffffff8172e690 t __snd_pcm_xrun.cold',
  'ffffffff8172a100 T snd_pcm_stop',
  'ffffffff8172a200 T snd_pcm_stop_xrun',
  'ffffffffc0200000 t test_lock\t[test_lockup]',
  'ffffffffc0200100 t test_unlock\t[test_lockup]',
  'ffffffffc0200350 t test_lockup\t[test_lockup]',
  'ffffffffc0200580 d test_data\t[test_lockup]',
  'ffffffffc0210000 t other_fn\t[other]',
].join('\n');

test('text symbols: exact names only, data and .cold clones excluded', () => {
  assert.deepEqual(
    [...findTextSymbols(KALLSYMS, ['__snd_pcm_xrun', 'snd_pcm_stop', 'test_data'])].sort(),
    ['__snd_pcm_xrun', 'snd_pcm_stop'],
  );
  assert.equal(
    findTextSymbols('ffffffff8172e690 t __snd_pcm_xrun.cold', ['__snd_pcm_xrun']).size,
    0,
  );
  // A module build of snd-pcm: the symbol carries a [snd_pcm] suffix.
  assert.ok(
    findTextSymbols('ffffffffc08e1234 t __snd_pcm_xrun\t[snd_pcm]', ['__snd_pcm_xrun']).has(
      '__snd_pcm_xrun',
    ),
  );
});

test('probe point: __snd_pcm_xrun first, snd_pcm_stop when it is missing or blacklisted', () => {
  const both = new Set(['__snd_pcm_xrun', 'snd_pcm_stop']);
  assert.equal(chooseProbePoint(both, new Set())?.symbol, '__snd_pcm_xrun');
  assert.equal(chooseProbePoint(new Set(['snd_pcm_stop']), new Set())?.symbol, 'snd_pcm_stop');
  const bl = parseKprobeBlacklist('0xffffffff8172e5d0-0xffffffff8172e690\t__snd_pcm_xrun\n');
  assert.equal(chooseProbePoint(both, bl)?.symbol, 'snd_pcm_stop');
  assert.equal(chooseProbePoint(new Set(), new Set()), null);
});

test('definitions, removal and triggers are the measured tracefs lines', () => {
  const [xrun, stop] = XRUN_PROBE_POINTS;
  assert.equal(kprobeDefinition(xrun!), 'p:xrunhunt/xrun __snd_pcm_xrun');
  assert.equal(stacktraceTrigger(xrun!), 'stacktrace');
  assert.equal(kprobeDefinition(stop!), 'p:xrunhunt/xrun snd_pcm_stop state=%si:s32');
  assert.equal(stacktraceTrigger(stop!), 'stacktrace if state==4');
  assert.equal(kprobeRemoval(), '-:xrunhunt/xrun');
  assert.equal(
    kprobeDefinition(xrun!, true),
    'p:xrunhunt/xrun __snd_pcm_xrun card=+0(+0(+0(%di))):s32 dev=+24(+0(%di)):s32 sub=+24(%di):s32 stream=+60(%di):s32 cardid=+4(+0(+0(%di))):string',
  );
  assert.equal(
    kprobeDefinition(stop!, true, 'arm64'),
    'p:xrunhunt/xrun snd_pcm_stop state=$arg2:s32 card=+0(+0(+0($arg1))):s32 dev=+24(+0($arg1)):s32 sub=+24($arg1):s32 stream=+60($arg1):s32 cardid=+4(+0(+0($arg1))):string',
  );
});

test('kprobes/list: armed, disabled, gone, absent', () => {
  assert.equal(
    parseKprobeList('ffffffff8172e5d0  k  __snd_pcm_xrun+0x0    [FTRACE]\n', '__snd_pcm_xrun'),
    'armed',
  );
  assert.equal(
    parseKprobeList(
      'ffffffff8172e5d0  k  __snd_pcm_xrun+0x0    [DISABLED][FTRACE]\n',
      '__snd_pcm_xrun',
    ),
    'disabled',
  );
  assert.equal(
    parseKprobeList(
      'ffffffffc08e1234  k  snd_pcm:__snd_pcm_xrun+0x0    [GONE]\n',
      '__snd_pcm_xrun',
    ),
    'gone',
  );
  assert.equal(
    parseKprobeList('ffffffff81000000  k  do_sys_open+0x0    [FTRACE]\n', '__snd_pcm_xrun'),
    'absent',
  );
});

test('lockdown mode is the bracketed word', () => {
  assert.equal(parseLockdown('none [integrity] confidentiality\n'), 'integrity');
  assert.equal(parseLockdown('[none] integrity confidentiality\n'), 'none');
  assert.equal(parseLockdown(''), null);
});

test('module snapshot names raw frames of an unloaded module like sym-offset would', () => {
  const mods = parseProcModules(
    'test_lockup 16384 0 - Live 0xffffffffc0200000\nother 8192 1 - Live 0xffffffffc0210000 (O)\n',
  );
  assert.deepEqual(
    mods.map((m) => [m.name, m.size]),
    [
      ['test_lockup', 16384],
      ['other', 8192],
    ],
  );
  const byName = new Map(mods.map((m) => [m.name, m]));
  const snap = moduleSymbolsFromKallsyms(KALLSYMS, new Set(['test_lockup']));
  assert.deepEqual(
    snap.get('test_lockup')?.map((s) => s.name),
    ['test_lock', 'test_unlock', 'test_lockup'],
  );
  assert.equal(
    resolveRawFrameLine(' => 0xffffffffc020015d', snap, byName),
    ' => test_unlock+0x5d/0x250 [test_lockup]',
  );
  // The last symbol runs to the module's end (base + size).
  assert.equal(
    resolveRawFrameLine(' => 0xffffffffc0200400', snap, byName),
    ' => test_lockup+0xb0/0x3cb0 [test_lockup]',
  );
  // The ftrace trampoline (outside every snapshotted module) and named frames stay as they are.
  assert.equal(
    resolveRawFrameLine(' => 0xffffffffc01f40c8', snap, byName),
    ' => 0xffffffffc01f40c8',
  );
  assert.equal(
    resolveRawFrameLine(' => __snd_pcm_xrun+0x5/0xc0', snap, byName),
    ' => __snd_pcm_xrun+0x5/0xc0',
  );
});

test('trace_pipe bookkeeping lines: markers and lost events', () => {
  assert.equal(
    parseTraceMarker(
      '            node-301     [001] .....   215.000100: tracing_mark_write: xrunhunt: clock marker abc',
      'xrunhunt: clock marker abc',
    ),
    215.0001,
  );
  assert.equal(parseTraceMarker('node-1 [000] ..... 1.0: tracing_mark_write: other', 'abc'), null);
  // As the lab's 6.1 prints it with options/sym-offset on.
  assert.equal(
    parseTraceMarker(
      '            node-97      [001] .....    51.865157: tracing_mark_write+0xdd/0x240: xrunhunt: clock marker ntq37aml990ab',
      'xrunhunt: clock marker ntq37aml990ab',
    ),
    51.865157,
  );
  assert.equal(parseLostEvents('CPU:1 [LOST 42 EVENTS]'), 42);
  assert.equal(parseLostEvents(' => __snd_pcm_xrun+0x5/0xc0'), 0);
});

test('failure explanations name root, lockdown and the missing kernel option', () => {
  const base = { lockdown: null, errno: 'EPERM', file: '/sys/kernel/tracing/kprobe_events' };
  assert.match(explainKprobeFailure({ ...base, euid: 1000 }).message, /need root/);
  assert.match(
    explainKprobeFailure({ ...base, euid: 0, lockdown: 'confidentiality' }).message,
    /locked down \(confidentiality\)/,
  );
  assert.match(
    explainKprobeFailure({ ...base, euid: 0, errno: 'ENOENT' }).hint,
    /CONFIG_KPROBE_EVENTS=y/,
  );
  assert.match(explainKprobeFailure({ ...base, euid: 0, errno: 'EBUSY' }).hint, /-:xrunhunt\/xrun/);
});

test('kprobe_profile: hits and misses of the xrunhunt event', () => {
  assert.deepEqual(
    parseKprobeProfile('  xrun                                          42               1\n'),
    {
      hits: 42,
      missed: 1,
    },
  );
  assert.equal(parseKprobeProfile('  other                    42  1\n'), null);
});
