// Ground truth 5 (issue 17): PipeWire in timer mode under write load, with the flight recorder.
// One boot of Debian's own kernel (kprobe backend; the recorder needs kprobe events) with an
// emulated HDA card: PipeWire 0.3.65 turns its period interrupts off there (hda is the lab card
// with NO_PERIOD_WAKEUP), so every XRUN is detected in PipeWire's own ioctl — the victim's
// syscall, the shape the breakdown exists for. A dd loop writes on PipeWire's CPU; `watch
// --recorder on` runs on the other CPU. Asserted, on the XRUNs the recorder delivered: each has
// a breakdown (complete, or with its `missing` reason), the parts of each complete one add up
// to its lateness within 5 %, and the detecting task is never xrunhunt; the kernel never
// raised a period interrupt for the stream (timer mode for real). Printed, not asserted: the
// delivered share (the recorder loses hits under TCG, a known open defect), the complete share
// (goal ≥ 95 %) and the classes. Nothing is mocked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab } from '../helpers/lab.js';
import { innerXrunhuntArgv } from '../../src/lab/lab-runner.js';
import { shellQuote } from '../../src/lab/guest-script.js';
import {
  recorderHitDetections,
  summariseDetections,
} from '../../src/lab/guest-pipewire-detection.js';
import { parseSoundInterruptCounts } from '../../src/lab/guest-pipewire.js';
import type { XrunBreakdown } from '../../src/recorder/breakdown-types.js';
import type { BreakdownSummary } from '../../src/recorder/breakdown-summary.js';
import { debianLabSkip } from './debian-lab.js';

interface WatchLine {
  type: string;
  streams?: { owner: string; pcm: string; periodFrames: number }[];
  report?: {
    conclusion: string[];
    warnings: string[];
    recorder?: {
      enabled: boolean;
      reason: string;
      hits: number;
      probeHits: number | null;
      lost: number;
      ringLost: number | null;
      windowsKept: number;
      breakdown?: { breakdowns: XrunBreakdown[]; summary: BreakdownSummary; unreadable: number };
    };
  };
}

/** Comms of xrunhunt in the guest: the CLI runs under node (tsx compiles with esbuild). */
const XRUNHUNT_COMMS = new Set(['node', 'xrunhunt', 'esbuild']);

const xrunhunt = (args: string[]): string => innerXrunhuntArgv(args).map(shellQuote).join(' ');
const skip = await debianLabSkip('debian');

test(
  'PipeWire timer mode on HDA under write load, watch --recorder on: every delivered XRUN has a breakdown, complete ones add up to their lateness within 5 %, none detected by xrunhunt',
  { skip, timeout: 900_000 },
  async () => {
    const base = mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-'));
    const out = join(base, 'results');
    const script = [
      // Without --inject the lab pins nothing: put PipeWire (every thread) and the write load
      // on CPU 0, the watcher and its trace_pipe reader alone on CPU 1, so the breakdown is
      // about the load and not about the observer (measured unpinned: the data thread landed
      // on the watcher's CPU and 17 of 67 XRUNs were "blocked by node", watch itself).
      'for t in /proc/$(pidof -s pipewire)/task/*; do taskset -p -c 0 "${t##*/}" >/dev/null; done',
      "taskset -c 0 sh -c 'while [ ! -e /run/stop-load ]; do dd if=/dev/zero of=/mnt/scratch/load bs=1M count=16 conv=fsync status=none; rm -f /mnt/scratch/load; done' &",
      'load=$!',
      // --capture none: beside the kprobe backend's own stack traces the recorder delivered 1
      // of 4,269 hits; alone, 67 of 911 (docs/recorder.md "PipeWire").
      `taskset -c 1 ${xrunhunt(['watch', '--duration', '10s', '--capture', 'none', '--recorder', 'on', '--out', 'watch-bundle', '--json'])} > watch.ndjson 2> watch.err`,
      'echo "watch exit: $?"',
      'touch /run/stop-load; wait $load',
      'echo "== affinity"; for t in /proc/$(pidof -s pipewire)/task/*; do taskset -p "${t##*/}"; done',
    ].join('\n');
    let passed = false;
    try {
      const r = await execInLab(script, {
        labOptions: [
          '--kernel',
          'debian',
          '--card',
          'hda',
          '--mem',
          '2G',
          '--pipewire',
          'timer',
          '--out',
          out,
          '--timeout',
          '14m',
        ],
        timeoutMs: 870_000,
      });
      const file = (name: string): string =>
        existsSync(join(out, name)) ? readFileSync(join(out, name), 'utf8') : '';
      assert.equal(r.code, 0, `lab exec failed:\n${r.stderr.slice(-2000)}`);
      assert.match(r.stdout, /watch exit: [02]\b/, `watch.err:\n${file('watch.err').slice(-2000)}`);

      // Timer mode for real: PipeWire asked for no period wake-ups and HDA honoured it.
      const setup = file('pipewire-setup.txt');
      assert.match(setup, /^mode: timer$/m);
      assert.match(setup, /^period_size: 256$/m, setup);
      const irqs = parseSoundInterruptCounts(setup, 'snd_hda_intel');
      assert.ok(irqs.start !== null && irqs.stop !== null, setup);
      assert.equal(irqs.stop, irqs.start, `HDA raised period interrupts while playing:\n${setup}`);

      const lines = file('watch.ndjson')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as WatchLine);
      const start = lines.find((l) => l.type === 'watch-start');
      assert.deepEqual(
        start?.streams?.map((s) => [s.owner, s.periodFrames]),
        [['pipewire', 256]],
      );
      const report = lines.at(-1)?.report;
      assert.ok(report, 'the last line is the watch report');
      const rec = report.recorder;
      assert.ok(rec, 'the report has a recorder object');
      assert.equal(rec.enabled, true, rec.reason);
      const bd = rec.breakdown;
      const diag = `recorder: ${JSON.stringify({ ...rec, breakdown: undefined })}\nwarnings: ${report.warnings.join('\n')}`;
      assert.ok(bd, `no breakdown\n${diag}`);

      // Who detected the XRUNs: each delivered hit's task and stack (recorder.txt).
      const hits = recorderHitDetections(file('watch-bundle/recorder.txt'));
      const byContext = summariseDetections(hits).byContext;
      const s = bd.summary;
      const affinity = r.stdout.split('== affinity\n')[1]?.trim().replace(/\n/g, '; ') ?? '?';
      process.stderr.write(
        `lab pipewire recorder (debian, hda, timer, dd beside PipeWire on CPU 0, watch on CPU 1): recorder delivered ${rec.hits} of ${rec.probeHits} fired (${rec.probeHits ? ((100 * rec.hits) / rec.probeHits).toFixed(0) : '?'} %), lost ${rec.lost}, ring lost ${rec.ringLost}; hits by context ${JSON.stringify(byContext)}; ${bd.breakdowns.length} breakdowns, ${s.complete} complete (${(100 * s.completeShare).toFixed(0)} %, goal 95 %), by shape ${JSON.stringify(s.byShape)}, classes ${JSON.stringify(s.byClass)}; top ${s.blockers
          .slice(0, 4)
          .map((x) => `${x.kind} ${x.name} ${(x.share * 100).toFixed(0)} %`)
          .join(', ')}; pipewire threads: ${affinity}\n`,
      );
      // Each window written ends with its hit; a window may also hold an earlier, dropped hit.
      // recorder.txt is capped (32 MiB): with PipeWire's 16,384-frame buffer W is 682 ms before
      // and after each hit, so only the first windows fit (74 of 400 in one run); the breakdowns
      // below cover every kept window.
      const written = (file('watch-bundle/recorder.txt').match(/^# window \d+:/gm) ?? []).length;
      assert.ok(written >= 1 && written <= rec.windowsKept, `${written} windows written\n${diag}`);
      assert.ok(
        hits.length >= written && hits.length <= rec.hits,
        `${hits.length} hits in ${written} windows of recorder.txt\n${diag}`,
      );
      // Period interrupts off: only a task's own syscall can notice, and it is never a status
      // read (watch does not poll a stream without period wake-ups).
      assert.equal(byContext['period-interrupt'], 0, JSON.stringify(hits));
      assert.equal(byContext['proc-status'], 0, JSON.stringify(hits));
      for (const h of hits)
        assert.ok(!XRUNHUNT_COMMS.has(h.comm ?? ''), `xrunhunt detected: ${JSON.stringify(h)}`);

      // Every delivered hit has its window and its breakdown.
      assert.ok(rec.hits >= 1, `the recorder delivered no hit\n${diag}`);
      assert.equal(rec.windowsKept, Math.min(rec.hits, 400), diag);
      assert.equal(bd.unreadable, 0, diag);
      assert.equal(bd.breakdowns.length, rec.windowsKept, diag);
      for (const b of bd.breakdowns) {
        if (!b.complete) assert.ok(b.missing && b.missing.length > 0, JSON.stringify(b));
        // Timer-scheduled: the kernel noticed in a task's own syscall, never xrunhunt's.
        assert.equal(b.shape, 'process', JSON.stringify(b));
        assert.ok(!XRUNHUNT_COMMS.has(b.detector.comm), `xrunhunt detected: ${JSON.stringify(b)}`);
      }
      for (const b of bd.breakdowns.filter((x) => x.complete)) {
        const sum = b.parts.reduce((a, p) => a + p.ms, 0);
        // 5 % of the lateness, and 1 µs for the rounding of sub-ms parts.
        assert.ok(
          Math.abs(sum - b.latenessMs) <= 0.05 * b.latenessMs + 0.001,
          `parts sum to ${sum} ms of ${b.latenessMs} ms: ${JSON.stringify(b)}`,
        );
      }
      passed = true;
    } finally {
      // A failed run keeps its results (watch.ndjson, recorder.txt, the logs) for diagnosis.
      if (passed) rmSync(base, { recursive: true, force: true });
      else process.stderr.write(`lab pipewire recorder: results kept in ${out}\n`);
    }
  },
);
