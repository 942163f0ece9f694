// `xrunhunt try KNOB=VALUE …`: proves a remedy. Runs the same session plan alternately with
// the current setting (A) and the change (B), restores after every B round, and prints the
// xrun rates with their ratio, 95 % interval and a verdict.
import { UsageError } from '../../errors.js';
import { sessionMachineOptions } from '../session-machine.js';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { claimBundleFolder, claimedFolderNote } from '../../run/bundle-folder.js';
import { KERNEL_CAPTURE_OPTIONS } from '../capture-options.js';
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { ROOT_OPTIONS } from '../root-options.js';
import { journalFolderFor, writeJournalFolderNotes } from '../journal-folder.js';
import { gatherScrubKnown, machineId, type BundleHost } from '../../bundle/index.js';
import { gatherHostFacts } from '../../session/host-facts.js';
import { realSettingFileIo } from '../../proc/index.js';
import { parseInteger } from '../../units.js';
import {
  DEFAULT_PERIOD,
  DEFAULT_PERIODS,
  DEFAULT_RATE,
  DEFAULT_RT_PRIORITY,
  parseSessionValues,
  runFolderName,
} from '../../session/session-options.js';
import { defaultSessionDeps } from '../../session/default-deps.js';
import { KNOBS, resolveKnobs } from '../../try/knobs/index.js';
import { BOOT_ONLY_KNOBS } from '../../try/knobs/boot-only.js';
import { runTry } from '../../try/try-run.js';
import { renderTryText } from '../../try/try-text.js';
import { writeTryBundle } from '../../try/try-bundle.js';
import { tryReportView } from '../../try/try-html.js';
import { checkReportTarget, writeHtmlReport } from '../../report-html/index.js';
import { toolVersion } from '../../tool-version.js';

/** One A+B pair of the default plan takes 40 s: 3 rounds end in about two and a half minutes. */
export const DEFAULT_TRY_PHASES = 'idle:5s,write:15s';
export const DEFAULT_TRY_ROUNDS = '3';

const knobList = KNOBS.map((k) => `  ${k.example.padEnd(30)} ${k.explain}`).join('\n');

export default defineCommand({
  name: 'try',
  summary: 'prove a remedy: A/B rounds with a setting changed, xrun rate ratio with a 95 % CI',
  usage: 'try KNOB=VALUE [KNOB=VALUE …] [--rounds N] [--phases PLAN] [--device DEV] [--json]',
  positionals: true,
  description: `
Runs the same session plan alternately with the current setting (A) and with the knobs
changed (B), A/B/A/B… for --rounds rounds, so slow drift (a filling disk, a warming CPU)
falls on both. Each B round journals the originals first and puts them back at its end,
on Ctrl-C and on errors; after a kill -9 the next xrunhunt run puts them back.

Then it compares the xrun counts as Poisson rates, per phase and in all: xruns per minute
in A and B, their ratio B/A with an exact 95 % confidence interval (as R's poisson.test),
whether the top offender's rate changed, and a verdict.

Knobs:
${knobList}

Reboot-only (explained with the exact boot line): ${BOOT_ONLY_KNOBS.join(', ')}.

Exit status: 0 the change cut xruns significantly, 2 it did not (or nothing to tell), 1 error.`,
  examples: [
    'sudo xrunhunt try scheduler.sda=mq-deadline --device hw:0,0 --rounds 6',
    'sudo xrunhunt try vm.dirty_bytes=64M vm.dirty_background_bytes=16M --phases write:30s',
    'xrunhunt try player.cpu=1 --device plug:jack --phases cpu:20s --json',
  ],
  options: {
    rounds: {
      type: 'string',
      valueName: 'N',
      default: DEFAULT_TRY_ROUNDS,
      description: 'A/B rounds (each runs the phase plan twice: current, then changed)',
    },
    device: {
      type: 'string',
      short: 'D',
      valueName: 'DEVICE',
      default: 'default',
      description: 'ALSA playback device (hw:0,0, plug:jack)',
    },
    period: {
      type: 'string',
      valueName: 'FRAMES',
      default: DEFAULT_PERIOD,
      description: 'period size in frames',
    },
    periods: {
      type: 'string',
      valueName: 'N',
      default: DEFAULT_PERIODS,
      description: 'periods per buffer',
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
      default: DEFAULT_TRY_PHASES,
      description: 'load phases of every round, KIND:DURATION[,...] (as in session)',
    },
    duration: {
      type: 'string',
      short: 'd',
      valueName: 'DURATION',
      description: 'cap each session (each A and each B) at DURATION',
    },
    ...KERNEL_CAPTURE_OPTIONS,
    pcm: {
      type: 'string',
      valueName: 'NAME',
      description:
        'set xrun_debug on this kernel PCM (pcmC0D0p) instead of the one behind --device',
    },
    'load-dir': {
      type: 'string',
      valueName: 'DIR',
      description: 'run disk loads in DIR (default: the system temp dir)',
    },
    'rt-priority': {
      type: 'string',
      short: 'p',
      valueName: 'PRIO',
      default: DEFAULT_RT_PRIORITY,
      description: 'SCHED_FIFO priority of the writer thread in A (and B unless player.priority)',
    },
    cpu: {
      type: 'string',
      short: 'a',
      valueName: 'N',
      description: 'pin the writer thread to CPU N in A (and B unless player.cpu)',
    },
    'inject-stall': {
      type: 'string',
      valueName: 'MS[xN]',
      description: 'stall the writer MS ms (N times) in every session (self-test of the counting)',
    },
    out: {
      type: 'string',
      valueName: 'DIR',
      description: 'write a bundle of kind "try" (bundle.json.gz, report.txt) to DIR',
    },
    'dev-root': {
      type: 'string',
      valueName: 'DIR',
      default: '/dev',
      description: 'find cpu_dma_latency in DIR instead of /dev (tests)',
    },
    'no-scrub': {
      type: 'boolean',
      description: 'keep host and user names in the --out bundle (default: replaced)',
    },
    html: {
      type: 'string',
      valueName: 'FILE',
      description: 'also write a self-contained HTML report (A and B side by side) to FILE',
    },
    json: { type: 'boolean', description: 'print the result as one JSON document on stdout' },
    ...ROOT_OPTIONS,
  },
  async run(ctx) {
    const v = ctx.values;
    const { io } = ctx;
    const rounds = parseInteger(v.rounds, '--rounds', 1, 1000);
    const changes = resolveKnobs(ctx.positionals, {
      procRoot: v['proc-root'],
      sysRoot: v['sys-root'],
      devRoot: v['dev-root'],
      io: realSettingFileIo,
    });
    const plan = parseSessionValues(
      { ...v, 'no-scrub': v['no-scrub'] },
      { cwd: io.cwd, tmpdir: tmpdir(), outDir: null },
    );
    if (plan.autoPeriod)
      throw new UsageError(
        'try needs a fixed --period: A and B must run at the same one (auto probes would choose per run)',
        { hint: 'find one with "xrunhunt session --period auto" first, then pass it here' },
      );
    const html = v.html === undefined ? null : resolve(io.cwd, v.html);
    if (html !== null) checkReportTarget(html);
    // Claimed once every option has been checked; a folder holding files gets a subfolder.
    const claimed =
      v.out === undefined
        ? null
        : claimBundleFolder(resolve(io.cwd, v.out), runFolderName(new Date(), 'try'));
    const outDir = claimed?.dir ?? null;
    const moved = claimed === null ? null : claimedFolderNote(claimed);
    if (moved !== null) io.stderr.write(`xrunhunt: note: ${moved}\n`);
    const journal = journalFolderFor(io);
    writeJournalFolderNotes(io, journal);
    const deps = defaultSessionDeps();
    const result = await runTry(
      {
        changes,
        rounds,
        io: realSettingFileIo,
        session: {
          ...plan,
          ...sessionMachineOptions(
            io,
            { procRoot: v['proc-root'], sysRoot: v['sys-root'], bootRoot: v['boot-root'] },
            journal,
            { interactive: false, progress: false },
          ),
        },
        onSession: (round, arm) => {
          if (!v.json)
            io.stderr.write(
              `xrunhunt: try: round ${round}/${rounds} ${arm} (${arm === 'A' ? 'current setting' : changes.map((c) => c.spec).join(' ')})…\n`,
            );
        },
      },
      ctx.signal,
      deps,
    );
    if (outDir !== null) {
      const roots = { procRoot: v['proc-root'], sysRoot: v['sys-root'], bootRoot: v['boot-root'] };
      const facts = gatherHostFacts(deps.discover(roots.procRoot), roots);
      const where = await writeTryBundle(
        outDir,
        result,
        {
          host: facts.bundle as BundleHost,
          toolVersion: toolVersion(),
          machineId: machineId(io.env),
          params: plan.params,
        },
        v['no-scrub'] ? null : gatherScrubKnown(io.env, roots),
      );
      if (!v.json) io.stderr.write(`xrunhunt: try bundle: ${where}\n`);
    }
    if (html !== null) await writeHtmlReport(html, tryReportView(result), toolVersion());
    if (v.json) writeJson(io.stdout, result);
    else io.stdout.write(renderTryText(result));
    return result.exitCode;
  },
});
