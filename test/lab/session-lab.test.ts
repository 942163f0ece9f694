// `xrunhunt session` inside the lab kernel (real /proc/asound, real xrun_debug, real XRUN
// stack dumps) under IO load, and with --period auto, in one boot with a scratch disk. The
// session with a ground-truth offender injected by test_lockup runs in watch.test.ts's boot,
// which has that shape (the default kernel, --inject lockup:10:irq).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSkip } from '../helpers/lab.js';
import { innerXrunhuntArgv } from '../../src/lab/lab-runner.js';
import { shellQuote } from '../../src/lab/guest-script.js';
import { readBundle } from '../../src/bundle/index.js';
import { parseEventLog } from '../../src/session/event-log.js';
import type { SessionReport } from '../../src/session/report-model.js';

const skip = labSkip();
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-session-lab-'));
after(() => rmSync(work, { recursive: true, force: true }));

const DEVICE = 'hw:CARD=Dummy,DEV=0';

type ReportEvent = SessionReport['events'][number];
/** A kernel XRUN event of the session's own stream. */
const isOurXrun = (e: ReportEvent): boolean => e.kind === 'xrun' && /pcmC0D0p/.test(e.pcm ?? '');

// Why kernel XRUNs went unmatched: the userspace count, the matched lags over the run (a
// drifting clock offset shows as a trend), and for each unmatched kernel XRUN the signed
// distance to the nearest userspace xrun.
function correlationDiagnosis(report: SessionReport): string {
  const ours = report.events.filter(isOurXrun);
  const matched = new Set(
    report.xruns.flatMap((x) => (x.kernelEventIndex === null ? [] : [x.kernelEventIndex])),
  );
  const lagAt = report.xruns
    .filter((x) => x.kernelEventIndex !== null)
    .map(
      (x) =>
        `${(x.timeMs / 1000).toFixed(1)}s:${(x.timeMs - report.events[x.kernelEventIndex!]!.sessionMs!).toFixed(1)}`,
    );
  const step = Math.max(1, Math.floor(lagAt.length / 25));
  const nearest = report.events.flatMap((e, i) => {
    if (!isOurXrun(e) || matched.has(i) || e.sessionMs === null) return [];
    const d = report.xruns.reduce(
      (best, x) =>
        Math.abs(x.timeMs - e.sessionMs!) < Math.abs(best) ? x.timeMs - e.sessionMs! : best,
      Infinity,
    );
    return [`${(e.sessionMs! / 1000).toFixed(1)}s:${d.toFixed(1)}`];
  });
  return [
    `userspace xruns ${report.xruns.length}, kernel XRUNs of our PCM ${ours.length}, offset ${report.correlation.offsetNs} ns, window ${report.correlation.windowMs} ms`,
    `matched lags (session s: ms) ${lagAt.filter((_, i) => i % step === 0).join(' ')}`,
    `unmatched kernel XRUNs (session s: nearest xrun ms) ${nearest.slice(0, 60).join(' ')}`,
  ].join('\n');
}

// The session-ms spans of kernel.log (raw /dev/kmsg records `PRI,SEQ,USEC,…;`) between
// sequence gaps (records the kernel overwrote before they were read), each shrunk by 100 ms
// at both ends; spans shorter than a second are left out.
function lossFreeStretches(kernelLog: string, report: SessionReport): [number, number][] {
  const first = report.xruns[0];
  const offset = report.correlation.offsetNs;
  if (!first || offset === null) return [];
  const sessionStartNs = first.monotonicNs - first.timeMs * 1e6;
  const ms = (usec: number): number => (usec * 1000 + offset - sessionStartNs) / 1e6;
  const out: [number, number][] = [];
  let from: number | null = null;
  let last: { seq: number; usec: number } | null = null;
  for (const line of kernelLog.split('\n')) {
    const m = /^\d+,(\d+),(\d+),/.exec(line);
    if (!m) continue;
    const rec = { seq: Number(m[1]), usec: Number(m[2]) };
    if (last && rec.seq > last.seq + 1) {
      if (from !== null) out.push([ms(from), ms(last.usec)]);
      from = rec.usec;
    } else if (from === null) from = rec.usec;
    last = rec;
  }
  if (from !== null && last) out.push([ms(from), Infinity]);
  return out
    .map(([a, b]): [number, number] => [a + 100, b - 100])
    .filter(([a, b]) => b - a >= 1000);
}

function parseReport(stdout: string, stderr: string): SessionReport {
  const start = stdout.indexOf('{');
  assert.ok(start >= 0, `a JSON report on stdout; stderr:\n${stderr.slice(-3000)}`);
  return JSON.parse(stdout.slice(start)) as SessionReport;
}

// The IO-load session and the --period auto session need the same guest (the default kernel, a
// 3 GiB scratch disk: disk loads keep 1 GiB free, the load's safety floor): one boot runs both,
// one after the other, each with its own bundle folder. Through a shell line so the guest
// itself reads xrun_debug back after the first session.
const XRUN_DEBUG_FILE = '/proc/asound/Dummy/pcm0p/xrun_debug';
let scratchRun: Promise<{ out: string; r: Awaited<ReturnType<typeof execInLab>> }> | undefined;
const scratchGuest = (): NonNullable<typeof scratchRun> =>
  (scratchRun ??= (async () => {
    const out = join(work, 'scratch');
    const session = (extra: string[], bundle: string): string =>
      innerXrunhuntArgv([
        'session',
        '--device',
        DEVICE,
        ...extra,
        '--load-dir',
        '/mnt/scratch',
        '--json',
        '--out',
        bundle,
      ])
        .map(shellQuote)
        .join(' ');
    const io = session(
      ['--period', '64', '--periods', '2', '--phases', 'idle:5s,write:20s:size=256M'],
      'bundle',
    );
    const auto = session(
      ['--period', 'auto', '--phases', 'idle:8s,write:16s:size=256M'],
      'auto-bundle',
    );
    const r = await execInLab(
      [
        `cat ${XRUN_DEBUG_FILE} > before.txt; ${io} > report.json 2> session.err; echo "rc io=$?"; cat ${XRUN_DEBUG_FILE} > after.txt`,
        `${auto} > auto.json 2> auto.err; echo "rc auto=$?"`,
      ].join('\n'),
      { labOptions: ['--scratch', '3G', '--out', out], timeoutMs: 600_000 },
    );
    return { out, r };
  })());

test(
  'lab session under IO load: real kernel dumps matched to userspace xruns, kernel offenders ranked, xrun_debug restored',
  { skip },
  async () => {
    const { out, r } = await scratchGuest();
    assert.match(r.stdout, /^rc io=2$/m, 'xruns at 64 × 2 under TCG');
    const stderr = existsSync(join(out, 'session.err'))
      ? readFileSync(join(out, 'session.err'), 'utf8')
      : r.stderr;
    const report = parseReport(readFileSync(join(out, 'report.json'), 'utf8'), stderr);
    assert.equal(report.kernelCapture.source, 'kmsg');
    assert.equal(report.kernelCapture.pcm, 'pcmC0D0p');
    assert.equal(report.kernelCapture.mask, 3);
    assert.equal(report.correlation.clockAlignment, 'marker');
    // xrun_debug was set to 3 during the session and is back to its original value now.
    const log = parseEventLog(readFileSync(join(out, 'bundle', 'events.ndjson'), 'utf8'));
    assert.ok(log.events.some((e) => e.type === 'capture-status' && e.mask === 3));
    assert.equal(
      readFileSync(join(out, 'after.txt'), 'utf8'),
      readFileSync(join(out, 'before.txt'), 'utf8'),
    );
    assert.ok(
      !report.warnings.some((w) => /could not restore/.test(w)),
      report.warnings.join('\n'),
    );

    const ours = report.events.filter(isOurXrun);
    assert.ok(ours.length >= 1, 'real XRUN dumps of our PCM');
    const diagnosis = (): string => correlationDiagnosis(report);
    // Every kernel XRUN stops the stream, so the player sees each one exactly once: where the
    // kernel log lost nothing, the two counts agree (the 1:1 model, independent of clocks).
    const stretches = lossFreeStretches(
      readFileSync(join(out, 'bundle', 'kernel.log'), 'utf8'),
      report,
    );
    let kernelInStretches = 0;
    let userInStretches = 0;
    for (const [a, b] of stretches) {
      kernelInStretches += ours.filter((e) => e.sessionMs! > a && e.sessionMs! < b).length;
      userInStretches += report.xruns.filter((x) => x.timeMs > a && x.timeMs < b).length;
    }
    assert.ok(userInStretches > 0, `xruns where the kernel log lost nothing\n${diagnosis()}`);
    assert.ok(
      Math.abs(kernelInStretches - userInStretches) <= 0.05 * userInStretches + 3,
      `where nothing was lost: ${kernelInStretches} kernel XRUNs vs ${userInStretches} userspace xruns\n${diagnosis()}`,
    );
    // Matching by time tests the timing model and the clock alignment, as far as TCG lets it:
    // the guest's TSCs are unsynchronised, so each CPU's printk clock sits a few ms off
    // CLOCK_MONOTONIC (the player's own-syscall detections, lag ≈ 0 by construction, spread
    // over −7…+7 ms in some boots, 0.3…1.9 ms in others), and at 64 × 2 the xruns come 5 ms
    // apart. Measured: 100 % (1,032 of 1,033) on a quiet host, 89 % beside a CI run, 69–81 % in
    // three CI runs (their offset came from a marker bracket that also held an open() and a
    // close() through the thread pool; it is one write(2) now, best of three). The 1:1 claim is the
    // count check above; this bound says the clocks are joined at all (a wrong offset matches
    // next to nothing).
    assert.ok(
      report.correlation.matched / ours.length >= 0.6,
      `matched ${report.correlation.matched} of ${ours.length} kernel XRUNs\n${diagnosis()}`,
    );
    // And from the player's side (the issue's criterion: 90 % on real hardware): the same
    // bound on the userspace xruns. When the kernel log wrapped before it was read (the report
    // says so), the lost dumps cannot match: then the bound is on the xruns the log can explain.
    const lost = report.kernelCapture.lostMessages ?? 0;
    if (lost > 0)
      assert.ok(
        report.warnings.some((w) => /kernel messages lost/.test(w)),
        report.warnings.join('\n'),
      );
    assert.ok(
      report.correlation.matched >=
        0.6 * (lost > 0 ? Math.min(ours.length, report.xruns.length) : report.xruns.length),
      `userspace side: ${report.correlation.matched} of ${report.xruns.length} xruns matched (${lost} kernel messages lost)\n${diagnosis()}`,
    );
    const lags = report.xruns
      .filter((x) => x.kernelEventIndex !== null)
      .map((x) => x.timeMs - report.events[x.kernelEventIndex!]!.sessionMs!);
    assert.ok(
      lags.every((l) => l >= -10 && l <= report.correlation.windowMs),
      `lags: ${lags.slice(0, 10).join(', ')}`,
    );
    assert.equal(
      report.correlation.unmatchedXruns,
      report.xruns.length - report.correlation.matched,
    );
    // Offenders of class kernel are ranked (by count), with signatures.
    const kernelEvents = report.events.filter((e) => e.offender.class === 'kernel').length;
    assert.equal(
      report.offenders.reduce((n, o) => n + o.count, 0),
      kernelEvents,
    );
    assert.ok(kernelEvents > 0, 'some xruns interrupted kernel code (class kernel)');
    assert.ok(report.offenders.every((o) => o.function && o.signature && o.count > 0));
    for (let i = 1; i < report.offenders.length; i++) {
      assert.ok(report.offenders[i - 1]!.count >= report.offenders[i]!.count, 'ranked by count');
    }
    assert.ok(
      report.phases.find((p) => p.name === 'write')?.throughput,
      `the write load ran: ${report.warnings.join(' | ')}`,
    );
    const bundle = await readBundle(join(out, 'bundle', 'bundle.json.gz'));
    assert.equal(bundle.params?.captureBackend, 'xrun_debug');
    assert.equal(bundle.events.length, report.events.length);
    console.log(
      `# lab IO: ${report.xruns.length} userspace xruns, ${ours.length} kernel XRUNs of pcmC0D0p, matched ${report.correlation.matched} (kernel side ${((report.correlation.matched / ours.length) * 100).toFixed(0)}%, where nothing was lost ${kernelInStretches} kernel vs ${userInStretches} userspace, ${report.kernelCapture.lostMessages} messages lost, userspace side ${((report.correlation.matchRatio ?? 0) * 100).toFixed(0)}%); ${report.offenders.length} kernel offenders, top ${report.offenders[0]?.function ?? '-'}`,
    );
  },
);

test(
  'lab session --period auto: idle probes choose the smallest nearly xrun-free period; the report weighs the load against idle',
  { skip },
  async () => {
    const { out, r } = await scratchGuest();
    assert.match(r.stdout, /^rc auto=[02]$/m, r.stderr.slice(-2000));
    const autoErr = readFileSync(join(out, 'auto.err'), 'utf8');
    const report = parseReport(readFileSync(join(out, 'auto.json'), 'utf8'), autoErr);
    const choice = report.periodChoice;
    assert.ok(choice, `a period choice; stderr:\n${autoErr.slice(-2000)}`);
    assert.equal(report.params.periodFrames, choice.periodFrames);
    const ran = choice.probes.filter((p) => p.xruns !== null);
    const chosen = ran.find((p) => p.periodFrames === choice.periodFrames)!;
    if (choice.nearlyXrunFree) {
      // Every smaller probe had more than one xrun idle, the chosen one at most one.
      assert.ok(chosen.xruns! <= 1, JSON.stringify(choice.probes));
      for (const p of ran.filter((q) => q.periodFrames < choice.periodFrames))
        assert.ok(p.xruns! > 1, JSON.stringify(choice.probes));
      // The probes stop at the first quiet period: nothing larger ran.
      assert.ok(!ran.some((p) => p.periodFrames > choice.periodFrames));
    }
    assert.match(autoErr, /--period auto chose \d+ frames/);
    assert.ok(report.conclusion.some((c) => /chosen by \d+ s idle probes/.test(c)));
    assert.deepEqual(report.loadEffect?.baseline.phases, ['idle']);
    assert.equal(report.loadEffect?.phases[0]?.kind, 'write');
    console.log(
      `# lab auto period: ${choice.probes.map((p) => `${p.periodFrames}:${p.xruns ?? '-'}`).join(' ')} → ${choice.periodFrames}; idle ${report.loadEffect?.baseline.xrunsPerMin}/min, write ${report.loadEffect?.phases[0]?.xrunsPerMin}/min (p ${report.loadEffect?.phases[0]?.pValue.toFixed(4)}); enriched: ${
        report.loadEffect?.offenders
          .slice(0, 3)
          .map((o) => `${o.function} +${o.excessPerMin}/min`)
          .join(', ') || 'none'
      }`,
    );
  },
);
