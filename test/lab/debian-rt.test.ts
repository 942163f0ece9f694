// Debian's PREEMPT_RT kernel in the lab (--kernel debian-rt): it boots, snd-dummy plays, and a
// session captures XRUN stacks through the kprobe backend (no xrun_debug). What the stacks look
// like there (interrupt handlers in threads) is described in docs/lab.md; this test asserts the
// deterministic part: under TCG a 64-frame period underruns within seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, GUEST_XRUNHUNT as X } from '../helpers/lab.js';
import { debianLabSkip } from './debian-lab.js';

const skip = await debianLabSkip('debian-rt');

interface Report {
  kernelCapture: { source: string };
  events: {
    kind: string;
    frames: string[];
    offender: { class: string; function: string | null };
  }[];
  offenders: { function: string | null; module: string | null; count: number }[];
  xruns: unknown[];
}

test(
  'Debian PREEMPT_RT kernel: boots, plays on snd-dummy, a session captures kprobe XRUN stacks',
  { skip, timeout: 720_000 },
  async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')), 'results');
    const script = [
      'echo "== release"; uname -r; cat /sys/kernel/realtime',
      'echo "== cards"; cat /proc/asound/cards',
      `echo "== session"; ${X} session --device hw:CARD=Dummy,DEV=0 --period 64 --periods 2 --phases idle:15s --out s --json > s.json; echo "rc=$?"`,
      'echo "== end"',
    ].join('\n');
    try {
      const r = await execInLab(script, {
        labOptions: ['--kernel', 'debian-rt', '--out', out, '--timeout', '10m'],
        timeoutMs: 680_000,
      });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /^== release\n\d+\.\d+\.\d+-\d+-rt-amd64\n1\n/m);
      assert.match(r.stdout, /^ 0 \[Dummy\s*\]/m);
      // 2: the session saw xruns (which at period 64 under TCG it always does).
      assert.match(r.stdout, /^rc=[02]$/m, r.stdout);
      const report = JSON.parse(readFileSync(join(out, 's.json'), 'utf8')) as Report;
      const xruns = report.events.filter((e) => e.kind === 'xrun');
      const threaded = xruns.filter((e) =>
        e.frames.some((f) => /irq_thread|run_ksoftirqd|ktimerd|hrtimer_run_softirq/.test(f)),
      ).length;
      process.stderr.write(
        `lab debian-rt session 64/2 idle:15s: ${report.xruns.length} userspace xruns, ${xruns.length} kprobe stacks (${threaded} from a thread); top: ${report.offenders
          .slice(0, 3)
          .map((o) => `${o.function} [${o.module ?? ''}] ${o.count}`)
          .join(', ')}\n  one stack: ${(xruns[0]?.frames ?? []).join(' < ')}\n`,
      );
      assert.equal(report.kernelCapture.source, 'trace_pipe');
      assert.ok(xruns.length >= 5, `expected at least 5 kprobe XRUN stacks, got ${xruns.length}`);
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true });
    }
  },
);
