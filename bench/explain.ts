// Benchmark: the flight recorder's breakdown (explainRecorderWindows), the step that ends a
// `watch --recorder on` or `session --recorder on`. Its worst realistic input is PipeWire's:
// ~50 XRUN hits a second and windows of 2 × its 16,384-frame buffer (682 ms) each side, so each
// trace line sits in dozens of overlapping windows (a 10 s watch under TCG spent 186 of its
// 255 s here before the parse memo and the sleep-end index). Inputs:
//   --file recorder.txt   a bundle's recorder.txt (its windows as written, `# after the hit` kept)
//   (default)             the repo's lab capture (test/fixtures/recorder-probe) laid end to end
//                         into 10.8 s with 120 hits, cut with PipeWire's window length
// The peer, in the same run: `grep -c .` over the same window text (reading it once, no parse).
// Prints ms per window, lines/s and the ratio (ours / grep, in time).
//   npm run bench:explain -- [--file recorder.txt] [--rounds 5]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { explainRecorderWindows } from '../src/recorder/explain-windows.js';
import type { RawTraceWindow } from '../src/recorder/explain-windows.js';
import { DEFAULT_WINDOW_LIMITS, RecorderWindows } from '../src/run/recorder-windows.js';

const { values } = parseArgs({
  options: { file: { type: 'string' }, rounds: { type: 'string', default: '5' } },
});
const rounds = Math.max(1, Number(values.rounds));

/** The windows of a recorder.txt as renderRecorderText writes them. */
function windowsOfRecorderText(text: string): RawTraceWindow[] {
  const out: { hit: { ts: number; cpu: number }; lines: string[]; after: string[] }[] = [];
  let cur: (typeof out)[number] | undefined;
  let inAfter = false;
  for (const line of text.split('\n')) {
    const m = /^# window \d+: hit at (\S+) on CPU (\d+)/.exec(line);
    if (m) {
      cur = { hit: { ts: Number(m[1]), cpu: Number(m[2]) }, lines: [], after: [] };
      out.push(cur);
      inAfter = false;
    } else if (line.startsWith('# after the hit')) inAfter = true;
    else if (cur && !line.startsWith('#') && line !== '')
      (inAfter ? cur.after : cur.lines).push(line);
  }
  return out;
}

// The repo's lab capture (90 ms, one XRUN hit) laid end to end COPIES times, each copy's trace
// times shifted by its span: 11 hits a second for 10.8 s, cut by the recorder's own window
// keeper with PipeWire's window (682 ms each side), so each line sits in ~15 windows.
const COPIES = 120;
function windowsOfFixture(): RawTraceWindow[] {
  const url = new URL('../test/fixtures/recorder-probe/hda-threadirq-excerpt.txt', import.meta.url);
  const lines = readFileSync(url, 'utf8').split('\n');
  const head = /^(\s*.+?-\d+\s+(?:\(\s*(?:\d+|-+)\)\s+)?\[\d+\]\s+(?:\S{4,7}\s+)?)(\d+\.\d+)(:)/;
  const times = lines.flatMap((l) => {
    const m = head.exec(l);
    return m ? [Number(m[2])] : [];
  });
  const span = Math.max(...times) - Math.min(...times) + 0.001;
  const kept = new RecorderWindows(() => 0.682, DEFAULT_WINDOW_LIMITS);
  for (let c = 0; c < COPIES; c++)
    for (const line of lines)
      kept.push(
        line.replace(
          head,
          (_, a: string, ts: string, colon: string) =>
            `${a}${(Number(ts) + c * span).toFixed(6)}${colon}`,
        ),
      );
  kept.finish();
  return kept.windows();
}

const windows = values.file
  ? windowsOfRecorderText(readFileSync(values.file, 'utf8'))
  : windowsOfFixture();
const lines = windows.reduce((n, w) => n + w.lines.length + (w.after?.length ?? 0), 0);
const timing = { periodSeconds: 256 / 48000, bufferSeconds: 16384 / 48000 };
const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-bench-explain-'));
const textFile = join(dir, 'windows.txt');
writeFileSync(textFile, windows.flatMap((w) => [...w.lines, ...(w.after ?? [])]).join('\n') + '\n');

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ours: number[] = [];
const grep: number[] = [];
let complete = 0;
try {
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    const x = explainRecorderWindows(windows, timing);
    ours.push(performance.now() - t0);
    complete = x.summary.complete;
    const g0 = performance.now();
    const g = spawnSync('grep', ['-c', '.', textFile], { encoding: 'utf8' });
    grep.push(performance.now() - g0);
    if (g.status !== 0) throw new Error(`grep failed: ${g.stderr}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const o = median(ours);
const g = median(grep);
console.log(
  `explain ${windows.length} windows, ${lines} lines (${values.file ?? 'fixture ×120, 682 ms windows'}): ` +
    `${o.toFixed(0)} ms (${(o / Math.max(1, windows.length)).toFixed(2)} ms/window, ${((lines / o) * 1000).toFixed(0)} lines/s), ` +
    `${complete} complete; grep -c over the same text ${g.toFixed(1)} ms; ours/grep ${(o / g).toFixed(1)}x the time ` +
    `(median of ${rounds}; load average ${loadavg()[0]!.toFixed(2)})`,
);
