// `xrunhunt compare A B`: two session bundles side by side (see src/session/compare.ts).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { UsageError, XrunhuntError } from '../../errors.js';
import { readBundle, type Bundle } from '../../bundle/index.js';
import { compareBundles, headroomSamplesByPhase } from '../../session/compare.js';
import { renderComparisonText } from '../../session/compare-text.js';
import { parseEventLog } from '../../session/event-log.js';
import { BUNDLE_FILES } from '../../session/session-bundle.js';

/** Resolves A/B: a bundle file, or a session folder holding bundle.json.gz. */
function locate(arg: string, cwd: string): { bundlePath: string; eventsPath: string } {
  const p = resolve(cwd, arg);
  if (!existsSync(p)) {
    throw new XrunhuntError('not-found', `no such bundle or session folder: ${arg}`, {
      hint: 'pass a bundle.json.gz or the folder a session wrote (--out)',
    });
  }
  if (statSync(p).isDirectory()) {
    const b = join(p, BUNDLE_FILES.bundle);
    if (!existsSync(b)) {
      throw new XrunhuntError('not-found', `${arg} is a folder without ${BUNDLE_FILES.bundle}`, {
        hint: 'pass the folder a session wrote with --out, or the bundle file itself',
      });
    }
    return { bundlePath: b, eventsPath: join(p, BUNDLE_FILES.events) };
  }
  return { bundlePath: p, eventsPath: join(dirname(p), BUNDLE_FILES.events) };
}

async function load(
  arg: string,
  cwd: string,
): Promise<{ label: string; bundle: Bundle; samples: Map<string, number[]> | null }> {
  const { bundlePath, eventsPath } = locate(arg, cwd);
  const bundle = await readBundle(bundlePath);
  let samples: Map<string, number[]> | null = null;
  if (existsSync(eventsPath)) {
    samples = headroomSamplesByPhase(parseEventLog(readFileSync(eventsPath, 'utf8')).events);
  }
  return { label: arg.endsWith('/') ? basename(arg.slice(0, -1)) : arg, bundle, samples };
}

export default defineCommand({
  name: 'compare',
  summary:
    'two sessions side by side: xruns per phase, headroom mean/stddev/worst, throughput, offenders',
  usage: 'compare A B [--json]',
  description: `
Compares two session bundles (a bundle.json.gz, or the folder a session wrote): A is the
baseline, B the candidate (another kernel, preemption model, buffer size, a patch).

Shows xruns and xruns per minute per phase; headroom (how much audio was still queued when
the writer woke) as mean, standard deviation, low 1% and worst case; the load's
throughput; and which kernel offenders are new in B, gone, or moved in the ranking.
Average and variance vs worst case vs throughput is the preemption trade-off in numbers.
Per-phase headroom comes from each folder's events.ndjson (per-second minima).`,
  examples: [
    'xrunhunt compare run-voluntary/ run-full/',
    'xrunhunt compare before/bundle.json.gz after/bundle.json.gz --json',
  ],
  positionals: true,
  options: {
    json: { type: 'boolean', description: 'print the comparison as one JSON document' },
    html: {
      type: 'string',
      valueName: 'FILE',
      description:
        'also write both runs overlaid as a self-contained HTML report (charts, stacks) to FILE',
    },
  },
  async run(ctx) {
    if (ctx.positionals.length !== 2) {
      throw new UsageError(
        `compare needs exactly two bundles (A and B), got ${ctx.positionals.length} (see: xrunhunt compare --help)`,
      );
    }
    const [a, b] = await Promise.all(ctx.positionals.map((p) => load(p, ctx.io.cwd)));
    const comparison = compareBundles(a!, b!);
    if (ctx.values.html !== undefined) {
      const { writeCompareHtml } = await import('../../report-html/index.js');
      const side = (s: typeof a) => ({
        ...s!,
        samplesUs: s!.samples ? [...s!.samples.values()].flat() : null,
      });
      await writeCompareHtml(resolve(ctx.io.cwd, ctx.values.html), side(a), side(b));
    }
    if (ctx.values.json) writeJson(ctx.io.stdout, comparison);
    else ctx.io.stdout.write(renderComparisonText(comparison));
    return 0;
  },
});
