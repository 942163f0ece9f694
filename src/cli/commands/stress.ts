// `xrunhunt stress`: a matrix of periods × loads, each cell a short session without a
// bundle; prints xruns per cell and the smallest xrun-free period per load.
import { sessionMachineOptions } from '../session-machine.js';
import { KERNEL_CAPTURE_OPTIONS } from '../capture-options.js';
import { tmpdir } from 'node:os';
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { parseDuration } from '../../units.js';
import { parseSessionValues } from '../../session/session-options.js';
import { WAKEUP_OPTION } from '../wakeup-option.js';
import { defaultSessionDeps } from '../../session/default-deps.js';
import { journalFolderFor, writeJournalFolderNotes } from '../journal-folder.js';
import { renderJunit } from '../../run/junit.js';
import { junitPath, writeJunitFile } from '../../run/junit-file.js';
import { nothingRan, runStressMatrix } from '../../session/stress-run.js';
import {
  parseLoadList,
  parsePeriodList,
  renderStressText,
  stressJunitCases,
  summarizeStress,
} from '../../session/stress.js';

export default defineCommand({
  name: 'stress',
  summary: 'matrix of periods × loads; the smallest xrun-free period per load',
  usage: 'stress [--period-sizes LIST] [--loads LIST] [--each DURATION] [--device DEV] [--json]',
  description: `
Runs one short session per cell of periods × loads (no bundle per cell) and prints the
xruns of each cell and, per load, the smallest period that ran without an xrun. Like
alsa-lib's latency test it grows the buffer until a run passes: for each load, periods are
tried from the smallest up and the larger ones are skipped once one passed (--all runs
every cell). Kernel XRUN dumps are captured as in "session" when the kernel has
xrun_debug; the top offender of each cell is in --json.

Exit status: 0 every load found an xrun-free period, 2 some load had xruns at every
period tried, 1 error.`,
  examples: [
    'xrunhunt stress --device hw:0,0 --period-sizes 32,64,128,256,512 --loads idle,write,metadata --each 30s',
    'xrunhunt stress --device plug:jack --period-sizes 64,256 --loads idle --each 5s --json',
  ],
  options: {
    device: {
      type: 'string',
      short: 'D',
      valueName: 'DEVICE',
      default: 'default',
      description: 'ALSA playback device (hw:0,0, plug:jack)',
    },
    'period-sizes': {
      type: 'string',
      deprecatedAliases: ['periods'],
      valueName: 'LIST',
      default: '32,64,128,256,512',
      description: 'period sizes to try, in frames, comma-separated',
    },
    loads: {
      type: 'string',
      valueName: 'LIST',
      default: 'idle,write,metadata',
      description:
        'load kinds to try, comma-separated (idle, write, fsync, metadata, read, memory, cpu, fork)',
    },
    each: {
      type: 'string',
      valueName: 'DURATION',
      default: '30s',
      description: 'length of each cell (500ms, 10s, 2m)',
    },
    'buffer-periods': {
      type: 'string',
      valueName: 'N',
      default: '2',
      description: 'periods per buffer (buffer = period × N frames)',
    },
    rate: { type: 'string', valueName: 'HZ', default: '48000', description: 'sample rate in Hz' },
    all: { type: 'boolean', description: 'run every cell, even above the first xrun-free period' },
    ...KERNEL_CAPTURE_OPTIONS,
    'load-dir': { type: 'string', valueName: 'DIR', description: 'run disk loads in DIR' },
    wakeup: WAKEUP_OPTION,
    'rt-priority': {
      type: 'string',
      short: 'p',
      valueName: 'PRIO',
      default: '80',
      description: 'SCHED_FIFO priority of the writer thread (0 = normal scheduling)',
    },
    cpu: {
      type: 'string',
      short: 'a',
      valueName: 'N',
      description: 'pin the writer thread to CPU N',
    },
    json: { type: 'boolean', description: 'print the matrix as one JSON document' },
    junit: {
      type: 'string',
      valueName: 'FILE',
      description: 'also write JUnit XML to FILE: one test case per cell, failed when it had xruns',
    },
    'proc-root': {
      type: 'string',
      valueName: 'DIR',
      default: '/proc',
      description: 'read /proc files from DIR (tests)',
    },
  },
  async run(ctx) {
    const v = ctx.values;
    const { io } = ctx;
    const periods = parsePeriodList(v['period-sizes']);
    const loads = parseLoadList(v.loads);
    const eachMs = parseDuration(v.each, '--each');
    const junit = junitPath(io.cwd, v.junit);
    const base = {
      device: v.device,
      periods: v['buffer-periods'],
      rate: v.rate,
      mask: v.mask,
      'rt-priority': v['rt-priority'],
      wakeup: v.wakeup,
      cpu: v.cpu,
      capture: v.capture,
      'load-dir': v['load-dir'],
      'no-scrub': false,
    };
    // Validate every cell's options before the first one runs.
    const plans = loads.flatMap((load) =>
      periods.map((period) => ({
        load,
        period,
        plan: parseSessionValues(
          {
            ...base,
            period: String(period),
            phases: `${load}:${Math.max(1, Math.round(eachMs))}ms`,
          },
          { cwd: io.cwd, tmpdir: tmpdir(), outDir: null },
        ),
      })),
    );
    const journal = journalFolderFor(io);
    writeJournalFolderNotes(io, journal);
    const started = Date.now();
    const cells = await runStressMatrix(
      {
        cells: plans,
        all: v.all,
        session: sessionMachineOptions(
          io,
          { procRoot: v['proc-root'], sysRoot: '/sys', bootRoot: '/boot' },
          journal,
          { interactive: false, progress: false },
        ),
        onCell: (load, period) => {
          if (io.stderrIsTTY && !v.json)
            io.stderr.write(`xrunhunt: stress: ${load} at period ${period}…\n`);
        },
      },
      ctx.signal,
      defaultSessionDeps(),
    );
    const failure = nothingRan(cells);
    if (failure !== null) {
      // Nothing ran: that is a tool error, not a result.
      io.stderr.write(`xrunhunt: error: no cell could run: ${failure}\n`);
      return 1;
    }
    const summary = summarizeStress(periods, loads, cells);
    const rate = Number(v.rate);
    if (v.json)
      writeJson(io.stdout, {
        ...summary,
        params: {
          device: v.device,
          rateHz: rate,
          bufferPeriods: Number(v['buffer-periods']),
          eachMs,
        },
      });
    else io.stdout.write(renderStressText(summary, rate, Number(v['buffer-periods'])));
    if (junit)
      writeJunitFile(
        junit,
        renderJunit(
          `xrunhunt stress ${v.device}`,
          stressJunitCases(summary),
          (Date.now() - started) / 1000,
        ),
      );
    return summary.exitCode;
  },
});
