// The flight recorder on a stock kernel (Debian's own, `--kernel debian`, Intel HDA, threadirqs),
// in ONE lab boot, with interrupts-off lockups injected: a session with `--recorder on` beside
// the kprobe backend at 128-frame periods records the scheduler/IRQ events, sees each XRUN through its own probe (every
// hit its kprobe_profile counts, within a stated margin) and keeps a window per hit; afterwards its
// instance and probe are gone. Then a `watch --recorder on` is killed with -9 while recording:
// the instance and probe stay, and the next start removes them (journal part `recorder`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSections as sections, GUEST_XRUNHUNT as X } from '../helpers/lab.js';
import { debianLabSkip } from './debian-lab.js';

const T = '/sys/kernel/tracing';
const DEVICE = 'hw:CARD=Intel,DEV=0';

interface Report {
  recorder?: {
    enabled: boolean;
    reason: string;
    events: string[];
    lines: number;
    lost: number;
    hits: number;
    probeHits: number | null;
    ringLost: number | null;
    windowsKept: number;
    bytes: number;
    drained?: { lines: number; hits: number; emptied: boolean | null };
    readerLag?: { maxSeconds: number; atStopSeconds: number | null };
    breakdown?: {
      unreadable: number;
      summary: {
        xruns: number;
        complete: number;
        completeShare: number;
        byClass: Record<string, number>;
        blockers: {
          kind: string;
          name: string;
          totalMs: number;
          share: number;
          count: number;
          topCount: number;
          stack?: string[];
        }[];
      };
    };
  };
  conclusion: string[];
  kernelCapture: { source: string };
  events: { kind: string }[];
  warnings: string[];
}

const skip = await debianLabSkip('debian');

test(
  'Debian kernel, HDA, threadirqs, interrupts-off lockup injected: --recorder on sees the XRUNs with a window each, its breakdown ranks the injected code first, and a kill -9 is undone at the next start',
  { skip, timeout: 840_000 },
  async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')), 'results');
    const listing = `grep -c xrunhunt_rec ${T}/kprobe_events; ls ${T}/instances | grep -c '^xrunhunt-recorder$'; echo end`;
    const script = [
      `echo "== session"; ${X} session --device ${DEVICE} --period 128 --periods 2 --phases idle:5s --capture kprobe --recorder on --out s1 --json > s1.json 2> s1.err; echo "rc=$?"`,
      `echo "== after"; ${listing}`,
      // A player to watch (restarted until the end: node starts slowly under TCG), then kill -9
      // the watch while the recorder is installed (waited for up to 4 min: in the final CI run,
      // with other guests beside it, 1 min was not enough for node to start and install it).
      `(while [ ! -e /run/stop-player ]; do aplay -D hw:0,0 -t raw -f S16_LE -r 48000 -c 2 --period-size=256 --buffer-size=512 -d 20 /dev/zero 2>/dev/null; done) & sleep 2`,
      `${X} watch --recorder on --duration 60s --out w1 >/dev/null 2>w1.err & W=$!`,
      `for i in $(seq 1 480); do [ -d ${T}/instances/xrunhunt-recorder ] && grep -q xrunhunt_rec ${T}/kprobe_events && break; sleep 0.5; done; sleep 1`,
      `kill -9 $W; wait $W 2>/dev/null`,
      `echo "== killed"; ${listing}`,
      'touch /run/stop-player; pkill -x aplay; sleep 1',
      `echo "== next"; ${X} session --device ${DEVICE} --phases idle:1s --capture none --json >/dev/null 2>next.err; echo "rc=$?"; cat next.err`,
      `echo "== restored"; ${listing}`,
    ].join('\n');
    try {
      const r = await execInLab(script, {
        labOptions: [
          '--kernel',
          'debian',
          '--card',
          'hda',
          '--threadirqs',
          // Ground truth for the breakdown through the product's own path: interrupts off for
          // 10 ms at a time on a CPU (src/lab/injector.ts) delays the HDA period interrupt.
          '--inject',
          'lockup:10:irq',
          '--scratch',
          '3G',
          '--out',
          out,
          '--timeout',
          // Boot took 57 s and the whole script 5–6 min under TCG at host load 9–13 (tsx compiles
          // the CLI three times in the guest); the drain at the session's end adds 10–30 s.
          '12m',
        ],
        timeoutMs: 780_000,
      });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      const s = sections(r.stdout);
      assert.ok(s.has('restored'), `${r.stdout}\n${r.stderr}`);
      const err = existsSync(join(out, 's1.err')) ? readFileSync(join(out, 's1.err'), 'utf8') : '';
      assert.match(s.get('session')!, /rc=[02]\b/, `session failed:\n${err}`);
      const report = JSON.parse(readFileSync(join(out, 's1.json'), 'utf8')) as Report;
      const rec = report.recorder!;
      const kprobeXruns = report.events.filter((e) => e.kind === 'xrun').length;
      process.stderr.write(
        `lab recorder debian hda 128/2 idle:5s lockup:10:irq: ${rec.hits} recorder hits of ${rec.probeHits} fired (kprobe_profile), ring lost ${rec.ringLost}; the kprobe backend delivered ${kprobeXruns} xruns; ${rec.windowsKept} windows, ${rec.lines} lines (${(rec.bytes / 1e6).toFixed(1)} MB), lost ${rec.lost}; drained at the end ${rec.drained?.lines} lines with ${rec.drained?.hits} hits (emptied ${rec.drained?.emptied}), reader lag max ${rec.readerLag?.maxSeconds.toFixed(1)} s\n`,
      );
      if (rec.breakdown)
        process.stderr.write(
          `lab recorder breakdown: ${rec.breakdown.summary.complete}/${rec.breakdown.summary.xruns} complete; classes ${JSON.stringify(rec.breakdown.summary.byClass)}; top ${rec.breakdown.summary.blockers
            .slice(0, 3)
            .map((b) => `${b.kind} ${b.name} ${(b.share * 100).toFixed(0)} %`)
            .join(', ')}\n`,
        );
      const diag = `recorder: ${JSON.stringify({ ...rec, breakdown: undefined })}\nwarnings: ${report.warnings.join('\n')}\nstderr: ${err.slice(-3000)}`;
      assert.equal(report.kernelCapture.source, 'trace_pipe', 'the kprobe backend ran beside it');
      assert.equal(rec.enabled, true, rec.reason);
      for (const e of [
        'sched:sched_switch',
        'sched:sched_waking',
        'irq:irq_handler_entry',
        'xrunhunt_rec:xrun',
      ])
        assert.ok(rec.events.includes(e), `${e} in ${rec.events.join(', ')}`);
      // Ground truth: the recorder probe's own hit count (kprobe_profile, read once the probe is
      // off at the end). Under TCG the reader falls behind the kernel, and until the recorder
      // drained its backlog at close, 22–94 % of the fired hits arrived with no loss the kernel
      // reports: the rest were still unread in the buffer. Measured since (drain at close):
      // host load 11, 8 s phase: 20.6 s behind, drained 353 of 382 delivered hits (10 s drain,
      // cut); host load 22–25, 5 s phase: 31.6 s behind, drained 121,166 lines with 496 of the
      // 508 delivered hits (emptied), 407 of 915 fired lost in 28,603 events the ring buffer
      // overwrote and reported. Asserted: the drain empties the buffer, no hit is lost without
      // the kernel reporting a loss at least that large, and with no reported loss ≥ 95 % arrive.
      assert.ok(rec.probeHits !== null, `kprobe_profile unreadable\n${diag}`);
      assert.ok(
        rec.probeHits >= 10,
        `expected at least 10 XRUNs at 128-frame periods with lockups\n${diag}`,
      );
      assert.ok(rec.hits <= rec.probeHits, diag);
      assert.equal(rec.drained?.emptied, true, `the drain at close was cut\n${diag}`);
      // The same overwritten events, as [LOST n] lines and as the per-CPU overrun counters.
      const reported = Math.max(rec.ringLost ?? 0, rec.lost);
      assert.ok(
        rec.hits + reported >= rec.probeHits,
        `${rec.probeHits - rec.hits} hits lost, the kernel reported ${reported} lost events\n${diag}`,
      );
      if (reported === 0)
        assert.ok(
          rec.hits >= 0.95 * rec.probeHits,
          `recorder hits ${rec.hits} of ${rec.probeHits} fired with no reported loss\n${diag}`,
        );
      assert.ok(rec.hits >= 10, `recorder hits ${rec.hits} of ${rec.probeHits}\n${diag}`);
      assert.equal(rec.windowsKept, Math.min(rec.hits, 400));
      const txt = readFileSync(join(out, 's1', 'recorder.txt'), 'utf8');
      assert.match(txt, /^# xrunhunt flight recorder: \d+ xrun hit/);
      assert.match(txt, /^# window 1: hit at \d+\.\d+ on CPU \d/m);
      assert.match(txt, /sched_switch: prev_comm=/);
      assert.match(txt, /xrun: \(__snd_pcm_xrun\+0x0\/0x[0-9a-f]+ \[snd_pcm\]\)/);
      assert.match(txt, /^ => snd_pcm_period_elapsed/m);

      // The breakdown of the kept windows (src/recorder/ via RecorderProbe.explain): under
      // threadirqs the kprobe stacks name only the IRQ thread, the breakdown names the injected
      // interrupts-off code as the largest share of the lateness. Measured with the shell capture
      // (test/lab/breakdown-lab.test.ts): 52 of 55 in-window XRUNs, 94–100 % complete.
      const bd = rec.breakdown;
      assert.ok(bd, `no breakdown in the report\n${diag}`);
      assert.equal(bd.summary.xruns, rec.windowsKept);
      assert.ok(bd.summary.completeShare >= 0.8, `complete ${bd.summary.completeShare}\n${diag}`);
      // The claim is about kernel code: among the interrupts-off stretches the breakdown could
      // name from the stack at the late interrupt, the injected function has the largest net
      // time. (Measured at 64/2 with write load: the writer's own sleeps led overall, 32 %; the
      // injector 13 %, 8 XRUNs; the device/hypervisor "came late" without a stack 11 %.)
      const named = bd.summary.blockers.filter((b) => b.kind === 'irq-latency' && b.stack?.length);
      assert.equal(
        named[0]?.name,
        'xrunhunt_inject_unlock [xrunhunt_inject]',
        JSON.stringify(named.slice(0, 3)),
      );
      assert.ok(named[0]!.count >= 3, `the injector named in ${named[0]!.count} XRUNs`);

      // Nothing left after the normal end …
      assert.match(s.get('after')!, /^0\n0\nend/);
      // … still installed right after a kill -9 …
      assert.match(
        s.get('killed')!,
        /^1\n1\nend/,
        `watch stderr: ${existsSync(join(out, 'w1.err')) ? readFileSync(join(out, 'w1.err'), 'utf8') : ''}`,
      );
      // … and removed by the next start, which says so.
      assert.match(s.get('next')!, /killed xrunhunt run .* restoring/);
      assert.match(s.get('restored')!, /^0\n0\nend/);
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true });
    }
  },
);
