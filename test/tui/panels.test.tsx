// Panels rendered to strings at the widths the layout gives them at 80 and 120 columns.
import '../helpers/ink-interactive.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToString } from 'ink';
import {
  reduceAll,
  initialDashboardState,
  reduceDashboard,
} from '../../src/tui/dashboard-state.js';
import { planLayout } from '../../src/tui/layout.js';
import { Dashboard } from '../../src/tui/components/dashboard.js';
import { StreamPanel } from '../../src/tui/components/stream-panel.js';
import { XrunPanel } from '../../src/tui/components/xrun-panel.js';
import { OffendersPanel } from '../../src/tui/components/offenders-panel.js';
import { StackPanel } from '../../src/tui/components/stack-panel.js';
import { HeadroomPanel } from '../../src/tui/components/headroom-panel.js';
import { LoadPanel } from '../../src/tui/components/load-panel.js';
import { CapturePanel } from '../../src/tui/components/capture-panel.js';
import { kernelEvent, sampleEvents } from './sample-events.js';

// eslint-disable-next-line no-control-regex
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const state = reduceAll(sampleEvents());
const at80 = planLayout(80, 24);
const at120 = planLayout(120, 40);
const widths = [
  { name: '80 columns', left: at80.left.width, right: at80.right!.width },
  { name: '120 columns', left: at120.left.width, right: at120.right!.width },
];

function lines(out: string): string[] {
  return strip(out).split('\n');
}

function assertBox(out: string, width: number, contentLines: number): string[] {
  const ls = lines(out);
  assert.equal(ls.length, contentLines + 2, `height of\n${out}`);
  for (const l of ls) assert.equal([...l].length, width, `width of "${l}"`);
  return ls;
}

test('stream panel at 80 columns, exactly', () => {
  const out = renderToString(<StreamPanel state={state} width={at80.left.width} lines={4} />, {
    columns: 80,
  });
  assert.equal(
    strip(out),
    [
      '┌─ Stream ───────────────────────┐',
      '│ plug:jack  48000 Hz            │',
      '│ period    64 fr  1.33 ms       │',
      '│ buffer   128 fr  2.67 ms       │',
      '│ SCHED_FIFO 80                  │',
      '└────────────────────────────────┘',
    ].join('\n'),
  );
});

test('offenders panel at 80 columns, exactly: counts, bars, names, shares', () => {
  const out = renderToString(<OffendersPanel state={state} width={at80.right!.width} lines={3} />, {
    columns: 80,
  });
  assert.equal(
    strip(out),
    [
      '┌─ Offenders ────────────────────────────────┐',
      '│    2 ██████ __filemap_add_folio        67% │',
      '│    1 ███    ext4_da_write_end [ext4]   33% │',
      '│                                            │',
      '└────────────────────────────────────────────┘',
    ].join('\n'),
  );
});

for (const w of widths) {
  test(`every panel keeps its exact box at ${w.name}`, () => {
    assertBox(
      renderToString(<StreamPanel state={state} width={w.left} lines={4} />, { columns: 200 }),
      w.left,
      4,
    );
    assertBox(
      renderToString(<XrunPanel state={state} width={w.left} lines={3} />, { columns: 200 }),
      w.left,
      3,
    );
    assertBox(
      renderToString(<HeadroomPanel state={state} width={w.left} lines={4} />, { columns: 200 }),
      w.left,
      4,
    );
    assertBox(
      renderToString(<CapturePanel state={state} width={w.left} lines={2} />, { columns: 200 }),
      w.left,
      2,
    );
    assertBox(
      renderToString(<LoadPanel state={state} width={w.right} lines={3} />, { columns: 200 }),
      w.right,
      3,
    );
    assertBox(
      renderToString(<OffendersPanel state={state} width={w.right} lines={4} />, { columns: 200 }),
      w.right,
      4,
    );
    assertBox(
      renderToString(<StackPanel state={state} width={w.right} lines={8} />, { columns: 200 }),
      w.right,
      8,
    );
  });
}

test('xrun panel: count, rate, dumps and a sparkline with the xrun seconds', () => {
  const ls = lines(renderToString(<XrunPanel state={state} width={at80.left.width} lines={3} />));
  assert.match(ls[1]!, /│ 5 xruns · 7\.1\/min · 3 dumps/);
  // 43 one-second buckets into 30 columns: two seconds per column, so 4 non-flat columns.
  const spark = ls[2]!.slice(2, -2).trim();
  assert.equal([...spark].filter((c) => c !== '▁').length, 4);
  assert.match(ls[3]!, /dumps: 3 kernel/);
});

test('stack panel: headline names the offender and its frame is marked', () => {
  const ls = lines(
    renderToString(<StackPanel state={state} width={at120.right!.width} lines={8} />),
  );
  assert.match(ls[0]!, /Latest XRUN stack \(3, xrun #4\)/);
  assert.match(ls[1]!, /│ ext4_da_write_end \[ext4\] +pcmC0D0p @33\.1s write/);
  const marked = ls.filter((l) => l.includes('▶'));
  assert.equal(marked.length, 1);
  assert.match(marked[0]!, /▶ ext4_da_write_end \[ext4\]/);
  assert.ok(ls.some((l) => l.includes('frames above')));
});

test('stack panel for an idle-loop dump says it is not a kernel offender', () => {
  const idle = kernelEvent(5);
  idle.offender = { class: 'idle', function: null, module: null, signature: null };
  const s = reduceDashboard(initialDashboardState(), {
    type: 'kernel-event',
    timeMs: 5,
    event: idle,
    matchedXrun: null,
  });
  const out = strip(renderToString(<StackPanel state={s} width={70} lines={4} />));
  assert.match(out, /interrupted the idle loop \(not a kernel offender\)/);
  assert.doesNotMatch(out, /▶/);
});

test('headroom panel: histogram of each second’s minimum in thirds of the buffer, then percentiles', () => {
  // Samples 2100, 1500, 400 and 42 µs against a 2667 µs buffer: 2 near-misses, 1 middle, 1 top.
  const ls = lines(
    renderToString(<HeadroomPanel state={state} width={at80.left.width} lines={4} />),
  );
  assert.match(ls[0]!, /Headroom \(of 2\.7 ms buffer\)/);
  assert.match(ls[1]!, /│ 0–33% +█+ +2 │/);
  assert.match(ls[2]!, /│ 33–67% +█+▌? +1 │/);
  assert.match(ls[3]!, /│ 67–100% +█+▌? +1 │/);
  assert.match(ls[4]!, /p50 1\.2ms p99 310µs min 42µs/);
});

test('load panel: phase i/n, progress with time, throughput; PAUSED when paused', () => {
  const ls = lines(
    renderToString(
      <LoadPanel state={{ ...state, loadPaused: true }} width={at80.right!.width} lines={3} />,
    ),
  );
  assert.match(ls[1]!, /2\/2 write PAUSED/);
  assert.match(ls[2]!, /█+░+ 0:31\/0:40/);
  assert.match(ls[3]!, /102\.4 MB\/s/);
});

test('before the first event every panel says what it is waiting for', () => {
  const empty = initialDashboardState();
  const out = strip(
    renderToString(<Dashboard state={empty} columns={80} rows={24} />, { columns: 80 }),
  );
  assert.match(out, /waiting for the session/);
  assert.match(out, /no kernel XRUN dumps yet/);
  assert.match(out, /no XRUN stack yet/);
  assert.match(out, /kernel capture not started/);
});

for (const [c, r] of [
  [80, 24],
  [120, 40],
  [100, 30],
  [60, 20],
]) {
  test(`whole dashboard fits ${c}×${r} with a row to spare`, () => {
    const out = strip(
      renderToString(<Dashboard state={state} columns={c!} rows={r!} />, { columns: c }),
    );
    const ls = out.split('\n');
    assert.ok(ls.length <= r! - 1, `${ls.length} rows`);
    for (const l of ls) assert.ok([...l].length <= c!, `too wide (${[...l].length}): "${l}"`);
    assert.match(ls[0]!, /^xrunhunt running 0:42 · plug:jack/);
    assert.match(out, /5 xruns/);
  });
}

test('help replaces the right column and lists every key', () => {
  const out = strip(
    renderToString(<Dashboard state={state} columns={80} rows={24} showHelp />, { columns: 80 }),
  );
  for (const k of ['q ', 'space', 's ', 'n ', '? '])
    assert.match(out, new RegExp(`│ ${k.replace('?', '\\?')}`));
  assert.match(out, /Stream/);
  assert.doesNotMatch(out, /Offenders/);
});

test('the news line shows stopping, then the conclusion at the end', () => {
  const stopping = strip(
    renderToString(<Dashboard state={{ ...state, status: 'stopping' }} columns={80} rows={24} />),
  );
  assert.match(
    stopping.split('\n')[1]!,
    /stopping: ending load and playback, restoring xrun_debug/,
  );
  const ended = strip(
    renderToString(
      <Dashboard
        state={{
          ...state,
          status: 'ended',
          exitCode: 2,
          conclusion: ['your xruns happen while ext4 writes back pages'],
        }}
        columns={80}
        rows={24}
      />,
    ),
  );
  assert.match(ended.split('\n')[1]!, /your xruns happen while ext4 writes back pages/);
});
