// `xrunhunt load <kind>`: one load generator alone, bounded in time and space, with its
// throughput every second (stderr, when interactive) and in total (stdout, or --json).
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { InterruptedError, UsageError } from '../../errors.js';
import {
  formatBytes,
  formatDuration,
  parseDuration,
  parseInteger,
  parseSize,
} from '../../units.js';
import {
  createLoad,
  formatSampleLine,
  listKinds,
  parseLoadKind,
  plural,
} from '../../load/index.js';
import type { LoadSample, LoadStats } from '../../load/index.js';

const kindList = listKinds()
  .map((k) => `  ${k.kind.padEnd(10)}${k.summary}`)
  .join('\n');

export default defineCommand({
  name: 'load',
  summary: 'run one load generator (disk, metadata, memory, cpu, fork, external) and measure it',
  usage:
    'load <kind> [--duration DURATION] [--dir DIR] [--size SIZE] [--workers N] [--json] [-- CMD...]',
  description: `
Generates the kind of load that breaks audio, in child processes that stop at once, and
reports its throughput: MB/s (10^6 bytes/s, as dd prints) and operations per second.

Kinds:
${kindList}

Safety: disk loads work only inside their own new folder under --dir (a lock file in it
names the owning process) and remove it when they end, are interrupted, or - if a run was
killed - at the next start. A disk load refuses to start if its --size would leave less
free than the floor: 10% of the filesystem or 1 GiB, whichever is larger (--min-free sets
it; 0 turns it off for a scratch filesystem). A full disk mid-run stops the load cleanly
and is reported. The memory load refuses to take more than the available memory minus
10% of RAM or 512 MiB (whichever is larger), so the OOM killer stays out of it.

--drop-caches (read load, root only) writes 1 to /proc/sys/vm/drop_caches after the file
is written and before each pass, so reads come from the disk rather than the page cache.
It drops clean cached pages system-wide: nothing is lost, but other programs read from
disk again for a while. Without it, use a --size larger than the RAM.

The external load runs CMD in the load's folder (also in $XRUNHUNT_LOAD_DIR), keeps its
output in a file (--output), and stops it at the end of --duration (SIGTERM to its
process group, SIGKILL 3 s later). Its exit status is reported.

Exit status: 0 the load ran, 1 it could not start or stopped early (disk full, a worker
or the external command failed), 130 interrupted.`,
  examples: [
    'xrunhunt load write --duration 30s --dir /mnt/scratch --size 2G',
    'xrunhunt load metadata --duration 1m --json',
    'sudo xrunhunt load read --size 4G --drop-caches',
    'xrunhunt load cpu --workers 4 --duration 10s',
    'xrunhunt load external --duration 30s -- stress-ng --io 2 --hdd 1',
  ],
  positionals: true,
  options: {
    duration: {
      type: 'string',
      short: 'd',
      valueName: 'DURATION',
      default: '10s',
      description: 'run for DURATION (500ms, 10s, 2m)',
    },
    dir: {
      type: 'string',
      valueName: 'DIR',
      description:
        "create the load's folder in DIR, on the filesystem to stress (default: the system temp dir)",
    },
    size: {
      type: 'string',
      valueName: 'SIZE',
      description:
        'bytes the load may use, all workers together (64M, 2G): disk for write/fsync/metadata/read, RAM for memory (defaults: write/read 1G, fsync/metadata 64M, memory half of what is safely free)',
    },
    workers: {
      type: 'string',
      valueName: 'N',
      description: 'parallel worker processes (default: all cores for cpu and fork, else 1)',
    },
    'min-free': {
      type: 'string',
      valueName: 'SIZE',
      description:
        'free space to keep on the filesystem (64M, 2G; default: 10% of it or 1G, whichever is larger)',
    },
    'drop-caches': {
      type: 'boolean',
      description:
        'read load, root only: drop the page cache before each pass so reads hit the disk',
    },
    output: {
      type: 'string',
      valueName: 'FILE',
      description:
        "external load: keep the command's output in FILE (default: a new file in the temp dir)",
    },
    json: {
      type: 'boolean',
      description: 'print one JSON document with the totals and per-second samples',
    },
  },
  async run(ctx) {
    const [kindText, ...extra] = ctx.positionals;
    if (kindText === undefined) {
      throw new UsageError('which load? expected a kind after "load"', {
        hint: `kinds: ${listKinds()
          .map((k) => k.kind)
          .join(', ')} (see: xrunhunt load --help)`,
      });
    }
    if (extra.length > 0) {
      throw new UsageError(
        `unexpected argument "${extra[0]}"; a command for the external load goes after --`,
      );
    }
    const kind = parseLoadKind(kindText);
    const v = ctx.values;
    const durationMs = parseDuration(v.duration, '--duration');
    const samples: LoadSample[] = [];
    const load = createLoad(kind, {
      durationMs,
      ...(v.dir !== undefined ? { dir: v.dir } : {}),
      ...(v.size !== undefined ? { sizeBytes: parseSize(v.size, '--size') } : {}),
      ...(v.workers !== undefined ? { workers: parseInteger(v.workers, '--workers', 1, 256) } : {}),
      ...(v['min-free'] !== undefined
        ? { minFreeBytes: parseSize(v['min-free'], '--min-free') }
        : {}),
      ...(v['drop-caches'] ? { dropCaches: true } : {}),
      ...(v.output !== undefined ? { outputPath: v.output } : {}),
      ...(ctx.rest.length > 0 ? { command: ctx.rest } : {}),
      onSample: (s) => {
        samples.push(s);
        if (ctx.io.stderrIsTTY)
          ctx.io.stderr.write(`${formatSampleLine(s, load.stats().opsUnit)}\n`);
      },
    });
    const stats = await load.start(ctx.signal);
    for (const c of load.cleaned) {
      ctx.io.stderr.write(
        `xrunhunt: removed ${c.path}, left by a killed run${c.pid ? ` (PID ${c.pid})` : ''}\n`,
      );
    }
    if (v.json) {
      writeJson(ctx.io.stdout, {
        ...stats,
        durationMs,
        cleaned: load.cleaned,
        samples,
      });
    } else {
      ctx.io.stdout.write(formatSummary(stats));
    }
    if (stats.stopReason === 'interrupted' && ctx.signal.aborted) {
      const reason: unknown = ctx.signal.reason;
      throw reason instanceof InterruptedError ? reason : new InterruptedError('signal');
    }
    if (stats.stopReason === 'disk-full' || stats.stopReason === 'failed') {
      ctx.io.stderr.write(
        `xrunhunt: error: the ${kind} load stopped early: ${stats.stopDetail ?? stats.stopReason}\n`,
      );
      if (stats.stopReason === 'disk-full') {
        ctx.io.stderr.write(
          '  hint: its files were removed; use a smaller --size or a filesystem with more room\n',
        );
      }
      return 1;
    }
    if (kind === 'external' && stats.stopReason === 'exited' && stats.exitCode !== 0) {
      ctx.io.stderr.write(
        `xrunhunt: error: the external command failed (exit ${stats.exitCode ?? stats.exitSignal}); its output is in ${stats.outputPath}\n`,
      );
      return 1;
    }
    return 0;
  },
});

/** The human summary: one line of totals, and what stopped the load when that matters. */
function formatSummary(s: LoadStats): string {
  const parts = [`${s.kind}: ${formatDuration(s.seconds * 1000)}`];
  if (s.bytes > 0) parts.push(`${formatBytes(s.bytes)}`, `${s.mbPerSec.toFixed(1)} MB/s`);
  if (s.ops !== undefined) {
    const unit = plural(s.opsUnit ?? 'op');
    parts.push(`${s.ops} ${unit}`, `${s.opsPerSec?.toFixed(0)} ${unit}/s`);
  }
  if (s.workers > 1) parts.push(`${s.workers} workers`);
  const lines = [parts.join(', ')];
  if (s.kind === 'external') {
    lines.push(
      `command ${s.stopReason === 'exited' ? 'exited' : 'stopped at the deadline'} (${
        s.exitSignal ? `signal ${s.exitSignal}` : `exit ${s.exitCode}`
      }); output: ${s.outputPath}`,
    );
  }
  return lines.join('\n') + '\n';
}
