// `xrunhunt analyze`: any kernel log (dmesg, /dev/kmsg, journalctl, kern.log, pasted mail,
// ftrace) → XRUN events → ranked offenders. Exit 0: no events; 2: events found; 1: error.
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { UsageError } from '../../errors.js';
import type { BundleInputHandler } from '../../analysis/analyze-files.js';
import { analyzeText } from '../../analysis/analyzer.js';
import type { XrunEvent } from '../../analysis/types.js';
import { parseBundleBytes } from '../../bundle/read.js';
import { bundleFramesToLog } from '../../bundle/frame-text.js';
import { writeAnalyzeReport } from '../../analysis/stream-report.js';
import { writeFoldedAnalysis } from '../../analysis/folded-events.js';

export { analysisJson } from '../../analysis/json-report.js';

/**
 * Bundles as input: their events are re-classified with the current rules (frames read back
 * as a log), so `analyze bundle.json.gz` and `analyze dmesg.txt` rank alike. `line` is the
 * 1-based index of the event in the bundle. A format 2 bundle's detection and flight recorder
 * breakdown ride along on the event (text and JSON show them as the session report does).
 */
export const bundleInput: BundleInputHandler = (text, source) => {
  const bundle = parseBundleBytes(Buffer.from(text, 'utf8'), source);
  return bundle.events.map((be, i): XrunEvent => {
    const again =
      be.frames.length > 0
        ? analyzeText(bundleFramesToLog(be.frames, be.pcm ?? 'pcmC0D0p').join('\n')).events[0]
        : undefined;
    const ev: XrunEvent = {
      kind: be.kind,
      pcm: be.pcm,
      line: i + 1,
      source,
      header: `${be.kind}${be.pcm ? ` ${be.pcm}` : ''} (bundle event ${i + 1})`,
      offender: again?.offender ?? {
        class: be.offender.class,
        function: be.offender.function,
        module: be.offender.module,
        signature: be.offender.signature ?? be.offender.class,
      },
      frames: again?.frames ?? [],
    };
    if (again?.offenderIndex !== undefined) ev.offenderIndex = again.offenderIndex;
    if (be.time !== null) ev.time = be.time;
    // Format 2: what the recording machine knew beyond the stack (its detection, its recorder).
    const detection = be.detection ?? again?.detection;
    if (detection) ev.detection = detection;
    if (be.breakdown) ev.breakdown = be.breakdown;
    return ev;
  });
};

export default defineCommand({
  name: 'analyze',
  summary: 'kernel log → XRUN events → ranked offending kernel code',
  usage: 'analyze [FILE...|-] [--json | --format text|markdown|json|folded] [--top N] [--verbose]',
  description: `
Reads kernel logs as users have them — plain dmesg, dmesg -T/-H, /dev/kmsg records,
journalctl -k (any locale, short-monotonic), syslog kern.log, serial console, text pasted
into mail (> quoting, wrapped lines), ftrace trace_pipe with a kprobe on __snd_pcm_xrun —
gzipped or not, from kernels 2.6 to 6.x on x86, arm, arm64 and riscv. Finds the ALSA XRUN,
hw-pointer and invalid-position reports, reads the stack printed after each, and names
what the CPU was doing when the late period interrupt arrived: kernel code (ranked),
the idle loop, user space, or nothing usable. With no FILE, reads standard input when it
is not a terminal. Exit status: 0 no events, 2 events found, 1 error.`,
  examples: [
    'dmesg | xrunhunt analyze -',
    'xrunhunt analyze /var/log/kern.log /var/log/kern.log.2.gz',
    'journalctl -k -b -1 | xrunhunt analyze - --format markdown > report.md',
    'xrunhunt analyze capture.txt --json --top 5',
    'xrunhunt analyze kern.log --format folded | flamegraph.pl > xruns.svg',
  ],
  positionals: true,
  options: {
    json: { type: 'boolean', description: 'one JSON document on stdout (same as --format json)' },
    format: {
      type: 'string',
      choices: ['text', 'markdown', 'md', 'json', 'folded'],
      valueName: 'FORMAT',
      default: 'text',
      description:
        'report format: text, markdown, json, or folded (collapsed stacks, root first, for flamegraph.pl / speedscope)',
    },
    top: {
      type: 'string',
      valueName: 'N',
      description: 'show the N most frequent offenders (default 10)',
    },
    verbose: { type: 'boolean', short: 'v', description: 'show every event with its full stack' },
    html: {
      type: 'string',
      valueName: 'FILE',
      description: 'also write a self-contained HTML report (charts, collapsible stacks) to FILE',
    },
  },
  async run(ctx) {
    const format = ctx.values.json ? 'json' : ctx.values.format;
    if (!['text', 'markdown', 'md', 'json', 'folded'].includes(format)) {
      throw new UsageError(`--format must be text, markdown, json or folded, got "${format}"`);
    }
    let top: number | undefined;
    if (ctx.values.top !== undefined) {
      top = Number(ctx.values.top);
      if (!Number.isInteger(top) || top < 1) {
        throw new UsageError(
          `--top expects a whole number of offenders ≥ 1, got "${ctx.values.top}"`,
        );
      }
    }
    const files = ctx.positionals;
    const stdinIsTTY = (ctx.io.stdin as { isTTY?: boolean }).isTTY === true;
    if (files.length === 0 && stdinIsTTY) {
      throw new UsageError(
        'no input: give a log FILE, or pipe one in (dmesg | xrunhunt analyze -)',
        {
          hint: 'see: xrunhunt analyze --help',
        },
      );
    }
    const htmlPath = ctx.values.html !== undefined ? resolve(ctx.io.cwd, ctx.values.html) : null;
    const html = htmlPath === null ? null : await import('../../report-html/index.js');
    // A bad --html path is refused before the (possibly long) analysis.
    if (html && htmlPath) html.checkReportTarget(htmlPath);
    const collector = html ? html.createAnalysisViewCollector() : null;
    const reportIo = {
      stdin: ctx.io.stdin,
      stdout: ctx.io.stdout,
      stderr: ctx.io.stderr,
      progress: ctx.io.stderrIsTTY,
      signal: ctx.signal,
    };
    const onEvent = collector ? { onEvent: (ev: XrunEvent) => collector.add(ev) } : {};
    const result =
      format === 'folded'
        ? await writeFoldedAnalysis(files.length === 0 ? '-' : files, reportIo, {
            bundleHandler: bundleInput,
            ...onEvent,
          })
        : await writeAnalyzeReport(files.length === 0 ? '-' : files, reportIo, {
            format: format === 'md' ? 'markdown' : (format as 'text' | 'markdown' | 'json'),
            ...(top ? { top } : {}),
            verbose: ctx.values.verbose,
            bundleHandler: bundleInput,
            ...onEvent,
          });
    if (html && htmlPath && collector) {
      const inputs = files.length ? files : ['standard input'];
      await html.writeAnalyzeHtmlView(htmlPath, collector.runView(result, inputs), inputs);
    }
    if (format !== 'json')
      for (const w of result.warnings) ctx.io.stderr.write(`xrunhunt: warning: ${w}\n`);
    return result.summary.events > 0 ? 2 : 0;
  },
});
