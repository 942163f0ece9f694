// Child of bench/analyze.ts: one real analyze report (streamed analysis, the --json document or
// the text report, to /dev/null), then one JSON line with its time, CPU and peak RSS.
//   node [--import tsx] bench/analyze-child.mjs LOG text|json dist|src
// `dist` loads the compiled program (as bin/xrunhunt.js does); `src` needs `--import tsx`.
import { createWriteStream } from 'node:fs';

const [path, formatArg, build] = process.argv.slice(2);
const { writeAnalyzeReport } = await import(
  build === 'dist' ? '../dist/analysis/stream-report.js' : '../src/analysis/stream-report.js'
);
const format = formatArg === 'json' ? 'json' : 'text';
const sink = createWriteStream('/dev/null');
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
let framesKept = 0;
const r = await writeAnalyzeReport(
  [path],
  { stdin: process.stdin, stdout: sink },
  { format, onEvent: (e) => (framesKept += e.frames.length > 0 ? 1 : 0) },
);
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const c = process.cpuUsage(c0);
process.stdout.write(
  JSON.stringify({
    secs,
    cpu: (c.user + c.system) / 1e6,
    events: r.summary.events,
    framesKept,
    offenders: r.offenders.length,
    maxRssKb: process.resourceUsage().maxRSS,
  }) + '\n',
);
process.exit(0);
