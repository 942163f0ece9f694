// `xrunhunt session`: the full diagnostic loop — preflight, xrun_debug on the PCM actually
// opened, kernel-log capture, real-time playback under load phases, correlation, a ranked
// report with a conclusion, and a bundle folder. Restores xrun_debug whatever happens.
import { sessionMachineOptions } from '../session-machine.js';
import { KERNEL_CAPTURE_OPTIONS, RECORDER_OPTIONS } from '../capture-options.js';
import type { RecorderMode } from '../../run/recorder-probe.js';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { claimBundleFolder, claimedFolderNote } from '../../run/bundle-folder.js';
import { defineCommand } from '../command.js';
import { phaseCases, renderJunit } from '../../run/junit.js';
import { junitPath, writeJunitFile } from '../../run/junit-file.js';
import { ROOT_OPTIONS } from '../root-options.js';
import { preferLiveTerminal } from '../../tui/live-terminal.js';
import { writeJson } from '../output.js';
import {
  DEFAULT_PERIOD,
  DEFAULT_PERIODS,
  DEFAULT_PHASES,
  DEFAULT_RATE,
  DEFAULT_RT_PRIORITY,
  defaultOutDir,
  runFolderName,
  parseSessionValues,
} from '../../session/session-options.js';
import { defaultSessionDeps } from '../../session/default-deps.js';
import { journalFolderFor, writeJournalFolderNotes } from '../journal-folder.js';
import { startSession, type SessionDeps } from '../../session/run-session.js';
import { probeIdlePeriod } from '../../session/period-probe.js';
import {
  AUTO_PERIOD_CANDIDATES,
  AUTO_PERIOD_MAX_XRUNS,
  probeStoppedAfterS,
  AUTO_PERIOD_PROBE_MS,
  type PeriodChoice,
} from '../../session/period-choice.js';
import type { StressRunOptions } from '../../session/stress-run.js';
import type { SessionPlan } from '../../session/session-options.js';
import { XrunhuntError } from '../../errors.js';
import { WAKEUP_OPTION } from '../wakeup-option.js';
import { renderReportMarkdown, renderReportText } from '../../session/report-text.js';

export const SESSION_OPTIONS = {
  device: {
    type: 'string',
    short: 'D',
    valueName: 'DEVICE',
    default: 'default',
    description: 'ALSA playback device (hw:0,0, plughw:CARD=PCH, plug:jack; see "aplay -L")',
  },
  period: {
    type: 'string',
    valueName: 'FRAMES|auto',
    default: DEFAULT_PERIOD,
    description:
      'period size in frames; auto: idle probes from 64 frames up choose the smallest nearly xrun-free one',
  },
  periods: {
    type: 'string',
    valueName: 'N',
    default: DEFAULT_PERIODS,
    description: 'periods per buffer (buffer = period × N frames)',
  },
  rate: {
    type: 'string',
    valueName: 'HZ',
    default: DEFAULT_RATE,
    description: 'sample rate in Hz',
  },
  phases: {
    type: 'string',
    valueName: 'PLAN',
    default: DEFAULT_PHASES,
    description:
      'load phases KIND:DURATION[,...] (durations 500ms, 10s, 2m; kinds idle, write, fsync, metadata, read, memory, cpu, fork, external)',
  },
  duration: {
    type: 'string',
    short: 'd',
    valueName: 'DURATION',
    description: 'stop after DURATION in all (10s, 2m), cutting the phase plan short',
  },
  ...KERNEL_CAPTURE_OPTIONS,
  ...RECORDER_OPTIONS,
  pcm: {
    type: 'string',
    valueName: 'NAME',
    description:
      'set xrun_debug on this kernel PCM (pcmC0D0p) instead of the one found behind --device (for JACK / PipeWire devices)',
  },
  'load-dir': {
    type: 'string',
    valueName: 'DIR',
    description:
      'run disk loads in DIR, on the filesystem to stress (default: the system temp dir)',
  },
  out: {
    type: 'string',
    valueName: 'DIR',
    description:
      'bundle folder (default: ./xrunhunt-<date>-<time>/); one that already holds files gets a new subfolder',
  },
  'max-xruns': {
    type: 'string',
    valueName: 'N',
    description: 'stop early once more than N xruns happened (exit 2)',
  },
  'until-xruns': {
    type: 'string',
    valueName: 'N',
    description:
      "stop early once N kernel XRUNs of the session's own stream were captured (enough evidence for a ranking)",
  },
  'on-xrun': {
    type: 'string',
    valueName: 'CMD',
    description:
      'run CMD (sh -c) for each xrun, at most once a second; details in XRUNHUNT_XRUN_* env vars',
  },
  'inject-stall': {
    type: 'string',
    valueName: 'MS[xN]',
    description: 'self-test: the writer sleeps MS milliseconds N times (20x5) to force xruns',
  },
  wakeup: WAKEUP_OPTION,
  'rt-priority': {
    type: 'string',
    short: 'p',
    valueName: 'PRIO',
    default: DEFAULT_RT_PRIORITY,
    description: 'SCHED_FIFO priority of the writer thread, 1-99 (0 = normal scheduling)',
  },
  cpu: {
    type: 'string',
    short: 'a',
    valueName: 'N',
    description: 'pin the writer thread to CPU N',
  },
  'no-scrub': {
    type: 'boolean',
    description: 'keep hostname, user name and home paths in the bundle (default: scrubbed)',
  },
  markdown: { type: 'boolean', description: 'print the report as Markdown (for bug reports)' },
  tui: { type: 'boolean', description: 'show the live dashboard while the session runs' },
  html: {
    type: 'string',
    valueName: 'FILE',
    description:
      'also write a self-contained HTML report (timeline, headroom, offenders, stacks) to FILE',
  },
  json: { type: 'boolean', description: 'print the report as one JSON document on stdout' },
  junit: {
    type: 'string',
    valueName: 'FILE',
    description: 'also write JUnit XML to FILE: one test case per phase, failed when it had xruns',
  },
  ...ROOT_OPTIONS,
} as const;

/** Runs the idle probes of `--period auto`, printing each as it ends; fails when none ran. */
async function chooseAutoPeriod(
  plan: SessionPlan,
  session: StressRunOptions['session'],
  signal: AbortSignal,
  deps: SessionDeps,
  stderr: NodeJS.WritableStream,
): Promise<PeriodChoice> {
  stderr.write(
    `xrunhunt: --period auto: idle probes of ${AUTO_PERIOD_PROBE_MS / 1000} s from ${AUTO_PERIOD_CANDIDATES[0]} frames up, until one has at most ${AUTO_PERIOD_MAX_XRUNS} xrun (each stops at its first xrun over that)\n`,
  );
  const choice = await probeIdlePeriod(
    {
      plan,
      session,
      onProbe: (p) => {
        const stoppedAfterS = probeStoppedAfterS(p);
        const stopped = stoppedAfterS === null ? '' : ` (stopped after ${stoppedAfterS} s)`;
        if (p.xruns !== null)
          stderr.write(`xrunhunt:   period ${p.periodFrames}: ${p.xruns} xruns idle${stopped}\n`);
        else if (p.note) stderr.write(`xrunhunt:   period ${p.periodFrames}: not run: ${p.note}\n`);
      },
    },
    signal,
    deps,
  );
  if (signal.aborted)
    throw new XrunhuntError('interrupted', 'interrupted during the --period auto probes');
  if (!choice) {
    throw new XrunhuntError(
      'device',
      '--period auto: no idle probe could run (see the notes above)',
      { hint: 'give a period, e.g. --period 256, to see the error of a plain session' },
    );
  }
  stderr.write(`xrunhunt: --period auto chose ${choice.periodFrames} frames\n`);
  return choice;
}

export default defineCommand({
  name: 'session',
  summary:
    'the full loop: xrun_debug on, kernel log, playback under load, ranked offenders, bundle',
  usage: 'session [--device DEV] [--period FRAMES] [--phases PLAN] [--out DIR] [--json] [options]',
  description: `
Plays audio at a small buffer through a real-time thread while load phases run, turns on
the kernel's XRUN reporting (xrun_debug) for the PCM actually opened, captures the stack
dumps the kernel prints at each underrun from /dev/kmsg (else journalctl -k -f, else
dmesg -W), matches them to the underruns the player saw, and ranks the kernel code that
was running when the period interrupt came late. xrun_debug is restored at the end, on
Ctrl-C, on errors, and - after a kill -9 - by the next xrunhunt run.

On kernels without xrun_debug (most distribution kernels), or with devices without a
kernel PCM (plug:jack), the session still measures userspace xruns, their timing and the
load they come with, and says what it cannot see; "xrunhunt lab" runs the same session in
a VM with a kernel that can.

The bundle folder holds bundle.json.gz (for "analyze", "compare", "aggregate"),
events.ndjson (every event as it happened), kernel.log and report.txt.

--until-xruns N ends the plan once N kernel XRUN reports of the stream were captured, so a
scripted run stops when its evidence is in; the report says it stopped early.

Exit status: 0 no xruns, 2 xruns (or --max-xruns exceeded), 1 error.`,
  examples: [
    'sudo xrunhunt session --device hw:0,0 --period 64',
    'xrunhunt session --device plug:jack --phases idle:10s,write:30s --json',
    'xrunhunt session --device hw:CARD=Dummy,DEV=0 --period 256 --load-dir /mnt/scratch --out /tmp/run1',
    'xrunhunt session --device plug:jack --inject-stall 20x3 --phases idle:5s',
    'sudo xrunhunt session --device hw:0,0 --period 128 --phases write:5m --until-xruns 50',
  ],
  options: SESSION_OPTIONS,
  async run(ctx) {
    const v = ctx.values;
    const { io } = ctx;
    const asked = resolve(io.cwd, v.out ?? defaultOutDir(io.cwd, new Date()));
    const plan = parseSessionValues(v, { cwd: io.cwd, tmpdir: tmpdir(), outDir: asked });
    const junit = junitPath(io.cwd, v.junit);
    const interactiveProgress = io.stderrIsTTY && !v.json && !v.tui;
    const journal = journalFolderFor(io);
    writeJournalFolderNotes(io, journal);
    const deps = defaultSessionDeps();
    const shared = sessionMachineOptions(
      io,
      { procRoot: v['proc-root'], sysRoot: v['sys-root'], bootRoot: v['boot-root'] },
      journal,
      {
        onXrun: v['on-xrun'] ?? null,
        // The dashboard owns the keyboard: no stdin prompts under --tui (restores happen unasked).
        interactive: io.stderrIsTTY && (io.stdin as { isTTY?: boolean }).isTTY === true && !v.tui,
        progress: interactiveProgress,
      },
    );
    const periodChoice = plan.autoPeriod
      ? await chooseAutoPeriod(
          plan,
          { ...shared, onXrun: null, progress: false },
          ctx.signal,
          deps,
          io.stderr,
        )
      : null;
    if (periodChoice) plan.params.periodFrames = periodChoice.periodFrames;
    // Claimed last, once every option has been checked: a refused run creates no folder.
    const claimed = claimBundleFolder(asked, runFolderName(new Date()));
    const outDir = claimed.dir;
    plan.params.outDir = outDir;
    const moved = claimedFolderNote(claimed);
    if (moved !== null) io.stderr.write(`xrunhunt: note: ${moved}\n`);
    const handle = startSession(
      {
        ...shared,
        outDir,
        params: plan.params,
        phases: plan.phases,
        injectStall: plan.injectStall,
        periodChoice,
        recorder: v.recorder as RecorderMode,
      },
      ctx.signal,
      deps,
    );
    if (!v.json && !v.tui) {
      io.stderr.write(
        `xrunhunt: session running; events: ${outDir}/events.ndjson (Ctrl-C stops and reports)\n`,
      );
    }
    if (v.tui) {
      preferLiveTerminal(v.json ? io.stderrIsTTY : io.stdoutIsTTY);
      const { runDashboard } = await import('../../tui/run-dashboard.js');
      // With --json the dashboard draws on stderr, so stdout stays one JSON document.
      await runDashboard(handle, {
        stdout: v.json ? io.stderr : io.stdout,
        stdin: io.stdin,
        stderr: io.stderr,
        stdoutIsTTY: v.json ? io.stderrIsTTY : io.stdoutIsTTY,
      });
    }
    const { report, exitCode } = await handle.outcome;
    if (v.html !== undefined) {
      const { writeSessionHtml } = await import('../../report-html/index.js');
      await writeSessionHtml(resolve(io.cwd, v.html), report, handle.events.history);
      const dropped = handle.events.droppedFromHistory;
      if (dropped > 0)
        io.stderr.write(
          `xrunhunt: note: the HTML timeline shows the newest ${handle.events.history.length} events; ${dropped} earlier ones are only in ${outDir}/events.ndjson\n`,
        );
    }
    if (v.json) writeJson(io.stdout, report);
    else if (v.markdown) io.stdout.write(renderReportMarkdown(report));
    // After the dashboard too: its last frame stays above, the report adds the bundle's path.
    else io.stdout.write(renderReportText(report));
    if (junit)
      writeJunitFile(
        junit,
        renderJunit(
          `xrunhunt session ${v.device}`,
          phaseCases(report, 'xrunhunt.session'),
          report.durationMs / 1000,
        ),
      );
    return exitCode;
  },
});
