// `xrunhunt debug status|on|off|restore|inject`: read and set the kernel's xrun_debug masks
// per PCM stream. Every change goes through the settings journal first, so the originals are
// always restorable: `on`/`off` leave the change in place until `debug restore`;
// `on --for DURATION` / `on --hold` change it only while the command runs.
import type { CliIo, CommandContext } from '../command.js';
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { UsageError, XrunhuntError } from '../../errors.js';
import { formatDuration, parseDuration, parseInteger } from '../../units.js';
import type {
  JournalFolder,
  RestoreReport,
  SettingRoots,
  XrunDebugChange,
} from '../../proc/index.js';
import {
  DEFAULT_XRUN_DEBUG_MASK,
  SHORT_LOCK_WAIT_MS,
  SettingsJournal,
  XrunDebugControl,
  beginSettingsRun,
  assertJournalFitsRoots,
  assertNoLiveSession,
  currentOwner,
  debuggableStreams,
  decodeXrunDebugMask,
  describeRefusedJournal,
  describeRestoreReport,
  discoverAsound,
  findJournalsIn,
  manualJournalFile,
  parseXrunDebugMask,
  readKernelRelease,
  realSettingFileIo,
  restoreJournals,
  selectStreams,
  whyNoXrunDebug,
  withXrunDebug,
} from '../../proc/index.js';
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { toolVersion } from '../../tool-version.js';
import { journalFolderFor, writeJournalFolderNotes } from '../journal-folder.js';

const ROOT_OPTIONS = {
  'proc-root': {
    type: 'string',
    valueName: 'DIR',
    default: '/proc',
    description: 'read the kernel files from DIR instead of /proc (a copied tree, tests)',
  },
  'boot-root': {
    type: 'string',
    valueName: 'DIR',
    default: '/boot',
    description: 'look for config-<release> in DIR instead of /boot',
  },
  'sys-root': {
    type: 'string',
    valueName: 'DIR',
    default: '/sys',
    description:
      'the /sys whose tracefs journaled kprobe settings must lie under (a copied tree, tests)',
  },
} as const;

const SELECT_OPTIONS = {
  pcm: {
    type: 'string',
    multiple: true,
    valueName: 'NAME',
    description: 'only this stream, named as in kernel logs (pcmC0D0p)',
  },
  card: {
    type: 'string',
    valueName: 'N|ID',
    description: 'only the streams of this card (number or id, e.g. 0 or PCH)',
  },
} as const;

const JSON_OPTION = {
  json: { type: 'boolean', description: 'print one JSON document on stdout' },
} as const;

/** The journal folder a changing command writes to. */
export function journalDirFor(io: CliIo): string {
  return journalFolderFor(io).dir;
}

function rootsOf(values: { 'proc-root': string; 'sys-root': string }): SettingRoots {
  return { procRoot: values['proc-root'], sysRoot: values['sys-root'] };
}

function interactive(io: CliIo): boolean {
  return io.stderrIsTTY && (io.stdin as { isTTY?: boolean }).isTTY === true;
}

function describeMask(mask: number | undefined, release: string): string {
  if (mask === undefined) return '?';
  const d = decodeXrunDebugMask(mask, release);
  if (d.bits.length === 0 && d.notes.length === 0) return `${mask} (off)`;
  return `${mask} (${[...d.bits.map((b) => b.name), ...d.unknownBits.map((b) => `bit${b}`)].join('+') || d.notes[0]})`;
}

function writeRestoreLines(
  io: CliIo,
  report: RestoreReport,
  to: 'stdout' | 'stderr' = 'stderr',
): void {
  for (const line of describeRestoreReport(report))
    io[to].write(`${to === 'stderr' ? 'xrunhunt: ' : ''}${line}\n`);
}

const status = defineCommand({
  name: 'debug status',
  summary: 'show the xrun_debug mask of every PCM stream, decoded into bits',
  usage: 'debug status [--pcm NAME] [--card N|ID] [--json]',
  description: `
Lists every /proc/asound/card*/pcm*{p,c}/xrun_debug with its card, device and PCM name, the
current mask decoded into bits (0 messages, 1 stack dump, 2 jiffies check; older kernels'
bits 3-6 named when set), and which substreams have xrun_injection. Also shows originals
saved by "debug on/off" or by a killed run. When the kernel has no xrun_debug it says why
(no sound support, no card, or the missing CONFIG_ options). Exit 0 either way.`,
  examples: ['xrunhunt debug status', 'xrunhunt debug status --card 0 --json'],
  options: { ...SELECT_OPTIONS, ...ROOT_OPTIONS, ...JSON_OPTION },
  async run({ io, values }) {
    const procRoot = values['proc-root'];
    const discovery = discoverAsound(procRoot);
    const release = readKernelRelease(procRoot);
    const all = discovery.streams.filter((s) => s.xrunDebugPath !== undefined);
    const streams = selectStreams(all, { pcm: values.pcm, card: values.card });
    const folder = journalFolderFor(io);
    const { journals, errors } = findJournalsIn(folder.searchDirs);
    if (!values.json) writeJournalFolderNotes(io, folder);
    const absence =
      all.length === 0 ? whyNoXrunDebug(discovery, { bootRoot: values['boot-root'] }) : undefined;
    const saved = journals.map((j) => ({
      file: j.file,
      kind: j.manual ? 'manual' : j.alive ? 'running-session' : 'killed-session',
      pid: j.journal.owner.pid,
      command: j.journal.owner.command,
      startedAt: j.journal.owner.startedAt,
      entries: j.journal.entries.map((e) => ({ path: e.path, original: e.original, kind: e.kind })),
    }));
    if (values.json) {
      writeJson(io.stdout, {
        available: all.length > 0,
        kernelRelease: release,
        ...(absence ? { reason: absence } : {}),
        streams: streams.map((s) => {
          const d = s.mask === undefined ? undefined : decodeXrunDebugMask(s.mask, release);
          return {
            path: s.xrunDebugPath,
            pcm: s.pcm,
            card: s.card,
            cardId: s.cardId ?? null,
            cardName: s.cardName ?? null,
            driver: s.driver ?? null,
            device: s.device,
            stream: s.stream,
            pcmName: s.pcmName ?? null,
            mask: s.mask ?? null,
            ...(s.maskError ? { maskError: s.maskError } : {}),
            bits: d?.bits.map((b) => ({ bit: b.bit, name: b.name, meaning: b.meaning })) ?? [],
            notes: d?.notes ?? [],
            injection: s.substreams.filter((u) => u.injectionPath).map((u) => u.index),
          };
        }),
        saved,
        warnings: [...discovery.warnings, ...errors],
      });
      return 0;
    }
    for (const w of [...discovery.warnings, ...errors])
      io.stderr.write(`xrunhunt: warning: ${w}\n`);
    if (absence) {
      io.stdout.write(`xrun_debug: not available\n  ${absence.message}\n  ${absence.hint}\n`);
    } else if (streams.length === 0) {
      io.stdout.write(
        `no stream with xrun_debug matches the selection (${all.length} streams have it)\n`,
      );
    } else {
      io.stdout.write(
        `xrun_debug on ${streams.length} stream${streams.length === 1 ? '' : 's'} (kernel ${release}):\n`,
      );
      const width = Math.max(...streams.map((s) => s.pcm.length));
      for (const s of streams) {
        const card = `card ${s.card}${s.cardId ? ` ${s.cardId}` : ''}${s.driver ? ` (${s.driver})` : ''}`;
        const inj = s.substreams.filter((u) => u.injectionPath).map((u) => `sub${u.index}`);
        io.stdout.write(
          `  ${s.pcm.padEnd(width)}  ${card}${s.pcmName ? `, "${s.pcmName}"` : ''}: mask ${s.maskError ? `unreadable: ${s.maskError}` : describeMask(s.mask, release)}` +
            `${inj.length ? `; injection: ${inj.join(' ')}` : ''}\n`,
        );
        const notes = s.mask === undefined ? [] : decodeXrunDebugMask(s.mask, release).notes;
        for (const n of notes) io.stdout.write(`  ${' '.repeat(width)}  note: ${n}\n`);
      }
    }
    for (const s of saved) {
      const what =
        s.kind === 'manual'
          ? `saved by "${quoteUntrusted(s.command, 80)}" (${quoteUntrusted(s.startedAt, 40)}); "xrunhunt debug restore" puts them back`
          : s.kind === 'running-session'
            ? `xrunhunt pid ${s.pid} ("${quoteUntrusted(s.command, 80)}") is running and will restore them when it ends`
            : `left by a killed run (pid ${s.pid}, "${quoteUntrusted(s.command, 80)}"); "xrunhunt debug restore" puts them back`;
      io.stdout.write(
        `saved: ${s.entries.length} original value${s.entries.length === 1 ? '' : 's'} ${what}\n`,
      );
      for (const e of s.entries)
        io.stdout.write(`  ${quoteUntrusted(e.path)} = ${quoteUntrusted(e.original)}\n`);
    }
    return 0;
  },
});

const OFF_OPTIONS = {
  ...SELECT_OPTIONS,
  for: {
    type: 'string',
    valueName: 'DURATION',
    description: 'change it only for DURATION (30s, 10m), then restore; Ctrl-C restores early',
  },
  hold: { type: 'boolean', description: 'change it until Ctrl-C, then restore' },
  ...ROOT_OPTIONS,
  ...JSON_OPTION,
} as const;

const ON_OPTIONS = {
  mask: {
    type: 'string',
    valueName: 'MASK',
    default: String(DEFAULT_XRUN_DEBUG_MASK),
    description: 'bits to set: 1 messages, 2 stack dump, 4 jiffies check (3, 0x3, 0b11)',
  },
  ...OFF_OPTIONS,
} as const;

interface ChangeOptions {
  mask: number;
  command: string;
  holdMs: number | 'signal' | undefined;
}

/** Shared body of `on` and `off`: restore killed runs, select, change (lasting or temporary), report. */
async function change(
  ctx: CommandContext<typeof OFF_OPTIONS>,
  opts: ChangeOptions,
): Promise<number> {
  const { io, values } = ctx;
  const folder = journalFolderFor(io);
  writeJournalFolderNotes(io, folder);
  // Nothing to change (no sound support, no such stream) is said as such, whoever holds the
  // lock; what is journaled is read again under it.
  debuggableStreams(values['proc-root'], values['boot-root'], {
    pcm: values.pcm,
    card: values.card,
  });
  // The settings lock before any value is read; held until the change is made (lasting) or
  // restored (temporary).
  const run = await beginSettingsRun({
    roots: rootsOf(values),
    searchDirs: folder.searchDirs,
    command: opts.command,
    stderr: io.stderr,
    stdin: io.stdin,
    interactive: interactive(io),
  });
  try {
    return await changeLocked(ctx, opts, folder);
  } finally {
    run.lock.release();
  }
}

async function changeLocked(
  ctx: CommandContext<typeof OFF_OPTIONS>,
  opts: ChangeOptions,
  folder: JournalFolder,
): Promise<number> {
  const { io, values, signal } = ctx;
  const { streams } = debuggableStreams(values['proc-root'], values['boot-root'], {
    pcm: values.pcm,
    card: values.card,
  });
  const report = (changes: XrunDebugChange[], extra: Record<string, unknown>): void => {
    if (values.json) writeJson(io.stdout, { changes, ...extra });
    else
      for (const c of changes)
        io.stdout.write(`${c.pcm}: xrun_debug ${c.from ?? '?'} -> ${c.to}  (${c.path})\n`);
  };
  if (opts.holdMs === undefined) {
    assertNoLiveSession(
      folder.searchDirs,
      streams.map((s) => s.xrunDebugPath!),
    );
    const journal = SettingsJournal.open(
      manualJournalFile(folder.dir),
      currentOwner(opts.command, false, toolVersion()),
    );
    assertJournalFitsRoots(journal.file, journal.entries, rootsOf(values));
    const control = new XrunDebugControl(journal, realSettingFileIo);
    const changes = control.enable(streams, opts.mask);
    control.releaseLock();
    report(changes, { journal: journal.file, lasting: true });
    if (!values.json)
      io.stderr.write(
        `xrunhunt: the change stays until "xrunhunt debug restore" (originals saved in ${journal.file})\n`,
      );
    return 0;
  }
  const holdMs = opts.holdMs;
  let restoreReport: RestoreReport | undefined;
  await withXrunDebug(
    streams,
    opts.mask,
    signal,
    async (changes, sig) => {
      if (!values.json) report(changes, {});
      io.stderr.write(
        `xrunhunt: xrun_debug = ${opts.mask} on ${changes.length} stream${changes.length === 1 ? '' : 's'}; restoring ${holdMs === 'signal' ? 'on Ctrl-C' : `in ${formatDuration(holdMs)} or on Ctrl-C`}\n`,
      );
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          clearInterval(keepAlive);
          resolve();
        };
        const timer = holdMs === 'signal' ? undefined : setTimeout(done, holdMs);
        // An abort listener alone does not keep Node's event loop alive.
        const keepAlive = setInterval(() => undefined, 60_000);
        if (sig.aborted) done();
        sig.addEventListener('abort', done, { once: true });
      });
      if (values.json) report(changes, { lasting: false });
    },
    {
      journalDir: folder.dir,
      searchDirs: folder.searchDirs,
      command: opts.command,
      toolVersion: toolVersion(),
      onRestore: (r) => {
        restoreReport = r;
      },
    },
  );
  if (restoreReport) {
    if (!values.json) writeRestoreLines(io, restoreReport);
    if (restoreReport.failed.length > 0) return 1;
  }
  return 0;
}

function holdOf(values: { for: string | undefined; hold: boolean }): number | 'signal' | undefined {
  if (values.for !== undefined && values.hold)
    throw new UsageError('use either --for DURATION or --hold, not both');
  if (values.hold) return 'signal';
  return values.for === undefined ? undefined : parseDuration(values.for, '--for');
}

const on = defineCommand({
  name: 'debug on',
  summary:
    'turn on XRUN reports (default mask 3: message + stack dump) on every stream or the selected ones',
  usage: 'debug on [--mask MASK] [--pcm NAME | --card N|ID] [--for DURATION | --hold] [--json]',
  description: `
Journals each stream's current value, then writes MASK to its xrun_debug. Without --for or
--hold the change stays after the command ends (the kernel prints XRUN dumps for any
application) until "xrunhunt debug restore" puts the journaled originals back. With --for
or --hold the originals come back when the time is up, on Ctrl-C/SIGTERM/SIGHUP, or, after a
kill -9, at the start of the next changing command. Needs root.`,
  examples: [
    'sudo xrunhunt debug on',
    'sudo xrunhunt debug on --mask 1 --card PCH',
    'sudo xrunhunt debug on --pcm pcmC0D0p --for 10m',
  ],
  options: ON_OPTIONS,
  async run(ctx) {
    const mask = parseXrunDebugMask(ctx.values.mask);
    return change(ctx, { mask, command: 'debug on', holdMs: holdOf(ctx.values) });
  },
});

const off = defineCommand({
  name: 'debug off',
  summary: 'set xrun_debug to 0 (no XRUN reports); originals stay journaled for "debug restore"',
  usage: 'debug off [--pcm NAME | --card N|ID] [--for DURATION | --hold] [--json]',
  description: `
Writes 0 to xrun_debug (journaling the current values first, like "debug on"). Use
"debug restore" to go back to the values the system had before xrunhunt touched them.`,
  examples: ['sudo xrunhunt debug off', 'sudo xrunhunt debug off --card 1'],
  options: OFF_OPTIONS,
  async run(ctx) {
    return change(ctx, {
      mask: 0,
      command: 'debug off',
      holdMs: holdOf(ctx.values),
    });
  },
});

const restore = defineCommand({
  name: 'debug restore',
  summary: 'put back every journaled original value (from debug on/off and from killed runs)',
  usage: 'debug restore [--proc-root DIR] [--sys-root DIR] [--json]',
  description: `
Writes back exactly the values journaled before xrunhunt first changed them, newest first,
and clears the journals. Journals of a run that is still going are left to it. A setting
that cannot be restored is reported (exit 1) and stays journaled for another try; one whose
file no longer exists (device unplugged) is dropped. A journal is restored only when it and
its folder belong to you and nobody else can write them, and when every path it names is an
xrun_debug file under --proc-root (or a file of xrunhunt's kprobe under the tracefs of
--sys-root); anything else is refused (exit 1) and left as it is.`,
  examples: ['sudo xrunhunt debug restore', 'xrunhunt debug restore --proc-root /tmp/copied-proc'],
  options: { ...ROOT_OPTIONS, ...JSON_OPTION },
  async run({ io, values }) {
    const folder = journalFolderFor(io);
    if (!values.json) writeJournalFolderNotes(io, folder);
    const out = await restoreJournals(folder.searchDirs, {
      roots: rootsOf(values),
      includeManual: true,
      command: 'debug restore',
      lockWaitMs: SHORT_LOCK_WAIT_MS,
    });
    const results = out.restored;
    const failed =
      results.some((r) => r.report.failed.length > 0) ||
      out.errors.length > 0 ||
      out.refused.length > 0;
    if (values.json) {
      writeJson(io.stdout, {
        journalDir: folder.dir,
        searchedDirs: folder.searchDirs,
        restored: results.flatMap((r) => r.report.restored),
        gone: results.flatMap((r) => r.report.gone),
        failed: results.flatMap((r) => r.report.failed),
        refused: out.refused,
        removedTemp: out.removedTemp,
        running: out.running.map((j) => ({ pid: j.pid, command: j.command })),
        errors: out.errors,
      });
    } else {
      for (const e of out.errors) io.stderr.write(`xrunhunt: error: ${e}\n`);
      for (const r of out.refused)
        for (const line of describeRefusedJournal(r)) io.stderr.write(`xrunhunt: error: ${line}\n`);
      for (const f of out.removedTemp)
        io.stderr.write(
          `xrunhunt: removed ${quoteUntrusted(f)}, left half-written by a killed run\n`,
        );
      for (const r of results) writeRestoreLines(io, r.report, 'stdout');
      for (const j of out.running)
        io.stderr.write(
          `xrunhunt: pid ${j.pid} ("${quoteUntrusted(j.command, 80)}") is running; it restores its own changes when it ends\n`,
        );
      if (results.length === 0 && out.errors.length === 0 && out.refused.length === 0)
        io.stdout.write(`nothing to restore (no journal in ${folder.searchDirs.join(' or ')})\n`);
    }
    return failed ? 1 : 0;
  },
});

const inject = defineCommand({
  name: 'debug inject',
  summary:
    'force one xrun on a running stream (writes 1 to xrun_injection) to prove the capture chain',
  usage: 'debug inject --pcm NAME [--sub N] [--json]',
  description: `
Writes 1 to /proc/asound/cardN/pcmD{p,c}/subS/xrun_injection: the kernel stops the
substream with an XRUN, exactly as a real underrun would, and prints the XRUN report
(with a stack dump if xrun_debug has bit 1). Only a substream that is running can xrun:
start playback first. The stack of an injected xrun is the writer's (__fput), not an
interrupt's. Needs root and CONFIG_SND_PCM_XRUN_DEBUG.`,
  examples: [
    'sudo xrunhunt debug inject --pcm pcmC0D0p',
    'sudo xrunhunt debug inject --pcm pcmC0D0p --sub 1',
  ],
  options: {
    pcm: {
      type: 'string',
      valueName: 'NAME',
      description: 'the stream, as in kernel logs (pcmC0D0p)',
    },
    sub: { type: 'string', valueName: 'N', default: '0', description: 'substream number' },
    ...ROOT_OPTIONS,
    ...JSON_OPTION,
  },
  async run({ io, values }) {
    if (values.pcm === undefined)
      throw new UsageError('debug inject needs --pcm NAME (e.g. --pcm pcmC0D0p)');
    const sub = parseInteger(values.sub, '--sub', 0);
    const { streams } = debuggableStreams(values['proc-root'], values['boot-root'], {
      pcm: [values.pcm],
    });
    const stream = streams[0]!;
    const substream = stream.substreams.find((u) => u.index === sub);
    if (!substream?.injectionPath) {
      const have = stream.substreams.filter((u) => u.injectionPath).map((u) => u.index);
      throw new XrunhuntError(
        'not-found',
        `${stream.pcm} has no sub${sub}/xrun_injection` +
          (have.length ? ` (substreams with it: ${have.join(', ')})` : ''),
        {
          hint: have.length
            ? `use --sub ${have[0]}`
            : 'this kernel has no xrun_injection (older than 4.x?)',
        },
      );
    }
    realSettingFileIo.write(substream.injectionPath, '1');
    const running = substream.status?.state === 'RUNNING';
    if (values.json) {
      writeJson(io.stdout, {
        pcm: stream.pcm,
        sub,
        path: substream.injectionPath,
        state: substream.status
          ? (substream.status.state ?? (substream.status.open ? 'open' : 'closed'))
          : null,
        injected: true,
      });
    } else {
      io.stdout.write(`${stream.pcm} sub${sub}: wrote 1 to ${substream.injectionPath}\n`);
      if (!running)
        io.stderr.write(
          `xrunhunt: note: the substream was ${substream.status?.open ? (substream.status.state ?? 'open') : 'closed'} when read; the kernel only forces an xrun on a running stream\n`,
        );
    }
    return 0;
  },
});

export default {
  name: 'debug',
  summary: "read and set the kernel's xrun_debug masks; originals journaled and always restorable",
  description: `
xrun_debug makes the kernel print a message (bit 0) and a stack dump (bit 1) at each
underrun. It exists only on kernels built with CONFIG_SND_DEBUG, CONFIG_SND_VERBOSE_PROCFS
and CONFIG_SND_PCM_XRUN_DEBUG. Changes are journaled (under $XDG_STATE_HOME/xrunhunt,
/var/lib/xrunhunt for root, or ~/.local/state/xrunhunt; root uses $XDG_STATE_HOME only when
root owns it) before they are made, one run at a time (a lock under /run/xrunhunt), and a
journal is restored only when it is yours and names xrun_debug files under --proc-root.`,
  subcommands: [status, on, off, restore, inject],
};
