// The ftrace text grammar of every era the recorder meets: flags of 4–7 characters (absent
// without the latency format), the record-tgid column, comms with spaces and dashes, stack
// blocks (also when another CPU's event comes between an event and its stack), lost events,
// over-long lines. Lines are copied from the lab's Debian 6.1 / 6.1-rt traces where marked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  createTraceParser,
  LOST_EVENTS,
  MAX_TRACE_LINE,
  parseEventFields,
  memoTraceLineParser,
  parseTraceLine,
  parseTraceText,
} from './trace-line.js';
import type { TraceEvent } from './breakdown-types.js';

function event(line: string): TraceEvent {
  const l = parseTraceLine(line);
  assert.equal(l.kind, 'event', line);
  return (l as { event: TraceEvent }).event;
}

test('an IRQ thread comm with dashes, 5-char flags (Debian 6.1)', () => {
  const e = event(
    ' irq/33-snd_hda_-159     [000] D..4.     8.570439: sched_waking: comm=aplay pid=180 prio=120 target_cpu=000',
  );
  assert.deepEqual(
    { comm: e.comm, pid: e.pid, cpu: e.cpu, flags: e.flags, ts: e.ts, name: e.name },
    {
      comm: 'irq/33-snd_hda_',
      pid: 159,
      cpu: 0,
      flags: 'D..4.',
      ts: 8.570439,
      name: 'sched_waking',
    },
  );
  assert.deepEqual(e.fields, { comm: 'aplay', pid: '180', prio: '120', target_cpu: '000' });
});

test('<idle>-0, 4-char flags (old kernels), 7-char flags (PREEMPT_RT), no flags column', () => {
  const old = event(
    '          <idle>-0       [001] d.h1  7.300000: irq_handler_entry: irq=1 name=i8042',
  );
  assert.equal(old.flags, 'd.h1');
  const idle = event(
    '          <idle>-0       [001] d..2.     8.569811: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=dmesg next_pid=151 next_prio=120',
  );
  assert.equal(idle.comm, '<idle>');
  assert.equal(idle.pid, 0);
  const rt = event(
    '           aplay-188     [000] .....11     8.750127: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])',
  );
  assert.equal(rt.flags, '.....11');
  assert.equal(rt.fields['location'], '__snd_pcm_xrun+0x0/0xc0 [snd_pcm]');
  const bare = event(
    '            bash-1234  [002]  1234.567890: sched_wakeup: comm=x pid=5 prio=120 success=1 target_cpu=002',
  );
  assert.equal(bare.flags, '');
  assert.equal(bare.fields['success'], '1');
  assert.equal(bare.fields['target_cpu'], '002');
});

test('the record-tgid column is skipped', () => {
  const e = event(
    '           aplay-180     (  180) [000] d..2.     8.568554: sched_switch: prev_comm=aplay prev_pid=180 prev_prio=120 prev_state=S ==> next_comm=cat next_pid=178 next_prio=120',
  );
  assert.equal(e.comm, 'aplay');
  assert.equal(e.fields['next_comm'], 'cat');
  const dash = event(
    '          <idle>-0       (-------) [001] d..2.     1.000000: sched_waking: comm=a pid=2 prio=120 target_cpu=001',
  );
  assert.equal(dash.pid, 0);
});

test('sched_switch fields are read by key, so a comm with spaces keeps them', () => {
  const f = parseEventFields(
    'sched_switch',
    'prev_comm=Web Content prev_pid=4242 prev_prio=120 prev_state=R+ ==> next_comm=my audio-thr next_pid=77 next_prio=9',
  );
  assert.deepEqual(f, {
    prev_comm: 'Web Content',
    prev_pid: '4242',
    prev_prio: '120',
    prev_state: 'R+',
    next_comm: 'my audio-thr',
    next_pid: '77',
    next_prio: '9',
  });
  const head = event(
    '     Web Content-4242    [001] d..2.     1.000000: sched_switch: prev_comm=Web Content prev_pid=4242 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120',
  );
  assert.equal(head.comm, 'Web Content');
  assert.equal(head.pid, 4242);
});

test('softirq, irq and hrtimer fields of both eras', () => {
  assert.deepEqual(parseEventFields('softirq_entry', 'vec=9 [action=RCU]'), {
    vec: '9',
    action: 'RCU',
  });
  assert.deepEqual(parseEventFields('irq_handler_entry', 'irq=33 name=snd_hda_intel:card0'), {
    irq: '33',
    name: 'snd_hda_intel:card0',
  });
  assert.deepEqual(
    parseEventFields(
      'hrtimer_expire_entry',
      'hrtimer=(____ptrval____) function=dummy_hrtimer_callback [snd_dummy] now=7075685550',
    ),
    {
      hrtimer: '(____ptrval____)',
      function: 'dummy_hrtimer_callback [snd_dummy]',
      now: '7075685550',
    },
  );
  // Older kernels print now= before function=.
  assert.equal(
    parseEventFields(
      'hrtimer_expire_entry',
      'hrtimer=ffff88003fc0e8a0 now=123 function=tick_sched_timer',
    )['function'],
    'tick_sched_timer',
  );
});

test('a stack block attaches to its event, also with another CPU’s event in between (Debian 6.1 trace)', () => {
  const text = [
    ' irq/33-snd_hda_-159     [000] D..1.     8.848476: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])',
    '     ksoftirqd/1-21      [001] ..s..     8.848477: softirq_exit: vec=7 [action=SCHED]',
    ' irq/33-snd_hda_-159     [000] D..1.     8.849000: <stack trace>',
    ' => __snd_pcm_xrun',
    ' => snd_pcm_update_state',
    ' => irq_thread',
    '     ksoftirqd/1-21      [001] d..2.     8.848534: sched_switch: prev_comm=ksoftirqd/1 prev_pid=21 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120',
  ].join('\n');
  const { events, stats } = parseTraceText(text);
  assert.equal(stats.unparsed, 0);
  const x = events.find((e) => e.name === 'xrun');
  assert.deepEqual(x?.stack, ['__snd_pcm_xrun', 'snd_pcm_update_state', 'irq_thread']);
  assert.equal(events.filter((e) => e.stack).length, 1, 'only the xrun has a stack');
  assert.equal(events.length, 3);
});

test('a stack trace line without its event, or stray frames, are counted, not attached', () => {
  const { events, stats } = parseTraceText(
    ' => orphan\n  x-1 [000] d..1. 1.000000: <stack trace>\n => f\n',
  );
  assert.equal(events.length, 0);
  assert.equal(stats.unparsed, 3);
});

test('lost events become a lost_events event at the last time seen', () => {
  const got: TraceEvent[] = [];
  const p = createTraceParser((e) => got.push(e));
  p.push(
    '           aplay-180     [000] d..2.     8.568554: sched_switch: prev_comm=aplay prev_pid=180 prev_prio=120 prev_state=S ==> next_comm=cat next_pid=178 next_prio=120',
  );
  p.push('CPU:1 [LOST 123 EVENTS]');
  p.end();
  const lost = got.find((e) => e.name === LOST_EVENTS);
  assert.deepEqual(
    { cpu: lost?.cpu, ts: lost?.ts, count: lost?.fields['count'] },
    { cpu: 1, ts: 8.568554, count: '123' },
  );
  assert.equal(p.stats.lostEvents, 123);
});

test('a line over 4 KiB is skipped and counted; comments and blank lines are not errors', () => {
  const { events, stats } = parseTraceText(
    `# tracer: nop\n\n  x-1 [000] d..1. 1.000000: sched_waking: comm=${'a'.repeat(MAX_TRACE_LINE)} pid=2 prio=1 target_cpu=000\nnot a trace line\n`,
  );
  assert.equal(events.length, 0);
  assert.equal(stats.tooLong, 1);
  assert.equal(stats.unparsed, 1);
});

test('the streaming parser emits an event only after its possible stack, and all at end()', () => {
  const got: string[] = [];
  const p = createTraceParser((e) => got.push(`${e.name}${e.stack ? `+${e.stack.length}` : ''}`));
  p.push('  a-1 [000] d..1. 1.000000: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])');
  assert.deepEqual(got, [], 'held: a stack may follow');
  p.push('  a-1 [000] d..1. 1.000100: <stack trace>');
  p.push(' => __snd_pcm_xrun');
  p.push('  a-1 [000] d..2. 1.000200: sched_waking: comm=b pid=2 prio=120 target_cpu=000');
  assert.deepEqual(got, ['xrun+1']);
  p.end();
  assert.deepEqual(got, ['xrun+1', 'sched_waking']);
});

test('the memo parser gives what parseTraceLine gives, line for line, and parses a repeated line once', () => {
  const text = readFileSync(
    new URL('../../test/fixtures/recorder-probe/hda-threadirq-excerpt.txt', import.meta.url),
    'utf8',
  );
  const lines = text.split('\n');
  const memo = memoTraceLineParser();
  // Twice over: the second pass must come from the memo (the same objects) and still be equal,
  // and a compiled key pattern reused across lines must not carry state from the last one.
  const first = lines.map((l) => memo(l));
  lines.forEach((l, i) => assert.deepEqual(first[i], parseTraceLine(l), l));
  lines.forEach((l, i) => assert.equal(memo(l), first[i], l));
  assert.ok(first.some((l) => l.kind === 'event' && l.event.name === 'sched_switch'));
});
