// `xrunhunt watch`: diagnose the dropouts of the audio the user is already playing. Finds
// the running PCM streams and their owners, turns on the kernel's XRUN reporting for them
// (restored at the end, on Ctrl-C and after a kill -9), ranks what the kernel was doing at
// each underrun with the load at that moment, and writes a session-compatible bundle.
import { KERNEL_CAPTURE_OPTIONS, RECORDER_OPTIONS } from '../capture-options.js';
import type { RecorderMode } from '../../run/recorder-probe.js';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { claimBundleFolder, claimedFolderNote } from '../../run/bundle-folder.js';
import { defineCommand } from '../command.js';
import { phaseCases, renderJunit } from '../../run/junit.js';
import { junitPath, writeJunitFile } from '../../run/junit-file.js';
import { ROOT_OPTIONS } from '../root-options.js';
import { preferLiveTerminal } from '../../tui/live-terminal.js';
import { writeNdjson } from '../output.js';
import { LOG_OPTIONS, logFilePath, openDaemonLog } from '../../log/daemon-log.js';
import { watchLogRecord } from '../../log/watch-record.js';
import { UsageError } from '../../errors.js';
import { parseDuration, parseInteger } from '../../units.js';
import { discoverAsound } from '../../proc/index.js';
import { machineId } from '../../bundle/index.js';
import { runFolderName } from '../../session/session-options.js';
import { defaultSessionDeps } from '../../session/default-deps.js';
import { journalFolderFor, writeJournalFolderNotes } from '../journal-folder.js';
import { createLoadSampler } from '../../watch/load-sampler.js';
import { findWatchTargets, startWatch } from '../../watch/run-watch.js';
import type { WatchDeps } from '../../watch/run-watch.js';
import { renderWatchText } from '../../watch/watch-report.js';
import { streamLabel } from '../../watch/running-streams.js';
import { toolVersion } from '../../tool-version.js';

/** The production dependencies of a watch. */
function defaultWatchDeps(): WatchDeps {
  const session = defaultSessionDeps();
  return {
    now: () => process.hrtime.bigint(),
    discover: (procRoot) => discoverAsound(procRoot),
    read: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    },
    readdir: (path) => readdirSync(path),
    selectCapture: session.selectCapture,
    loadSampler: (procRoot) =>
      createLoadSampler(procRoot, undefined, procRoot === '/proc' ? [process.pid] : []),
  };
}

export default defineCommand({
  name: 'watch',
  summary: 'diagnose the dropouts of audio already playing (PipeWire, JACK, a DAW): passive',
  usage:
    'watch [--pcm pcmC0D0p ...] [--jack [--jack-server NAME] [--jack-log FILE]] [--duration DURATION] [--until-xruns N] [--out DIR] [--json | --tui]',
  description: `
Watches the PCM streams that are playing right now - whoever plays them: PipeWire,
PulseAudio, jackd, a DAW, aplay - without playing or loading anything itself. It names
each stream's owner (from owner_pid in /proc/asound/card*/pcm*/sub*/status), reads the
period and buffer it runs with (hw_params), turns on xrun_debug for those PCMs (or uses
the kprobe backend where the kernel has no xrun_debug), follows the kernel log, and for
each XRUN prints the stream, the interrupted kernel code and the load at that moment
(load average, /proc/pressure, the busiest processes). A ranking of offenders, owners and
idle/user/kernel shares is printed every 10 s and at the end.

Some owners keep the kernel from ever stopping their stream (stop_threshold above the
buffer, silence filling: dmix, some sound-server modes): their underruns are played as
silence and the kernel reports nothing. watch reads each stream's sw_params and says so,
and counts the underruns the stream's own counters show (avail_max in status, read every
250 ms: a lower bound).

With --jack it also registers a passive client with the running JACK server (never
starting one; no ports, no process callback, so it is not part of the graph) and records
the server's xrun callbacks with JACK's delayed microseconds, the DSP load and the client
list. JACK's API does not say which client was late; jackd prints it
("JackEngine::XRun: client = NAME was not finished"): give jackd's output with --jack-log
and each JACK xrun is put down to that client. With --jack and no kernel stream playing
(JACK's dummy backend, a network backend) watch reads JACK's view alone.

Stops on Ctrl-C, --duration or --until-xruns; restores xrun_debug; writes the same bundle
folder as "xrunhunt session" (kind "watch"), which analyze, compare and aggregate read.

Exit status: 0 no xruns, 2 xruns seen, 1 error or nothing playing.`,
  examples: [
    'sudo xrunhunt watch',
    'sudo xrunhunt watch --pcm pcmC0D0p --until-xruns 20',
    'sudo xrunhunt watch --duration 10m --out /tmp/watch1 --json > watch.ndjson',
    'sudo xrunhunt watch --tui',
    'xrunhunt watch --jack --jack-log /tmp/xrunhunt-jackd.log --duration 1m',
  ],
  options: {
    pcm: {
      type: 'string',
      multiple: true,
      valueName: 'NAME',
      description:
        'watch only this kernel PCM (pcmC0D0p; repeat for more; default: every running one)',
    },
    duration: {
      type: 'string',
      short: 'd',
      valueName: 'DURATION',
      description: 'stop after DURATION (30s, 10m, 1h; default: until Ctrl-C)',
    },
    'until-xruns': {
      type: 'string',
      valueName: 'N',
      description: 'stop once N kernel XRUNs were seen on the watched streams',
    },
    out: {
      type: 'string',
      valueName: 'DIR',
      description:
        'bundle folder (default: ./xrunhunt-watch-<date>-<time>/); one that already holds files gets a new subfolder',
    },
    jack: {
      type: 'boolean',
      description:
        "also read JACK's own xrun view through libjack (a passive client; never starts a server)",
    },
    'jack-server': {
      type: 'string',
      valueName: 'NAME',
      description:
        'the JACK server to observe (jackd -n NAME; default: $JACK_DEFAULT_SERVER or "default"); implies --jack',
    },
    'jack-log': {
      type: 'string',
      valueName: 'FILE',
      description:
        "jackd's output file, read from its end, to name the client each JACK xrun waited for; implies --jack",
    },
    ...KERNEL_CAPTURE_OPTIONS,
    ...RECORDER_OPTIONS,
    'rank-every': {
      type: 'string',
      valueName: 'DURATION',
      default: '10s',
      description: 'print the live ranking every DURATION (human output)',
    },
    'no-scrub': {
      type: 'boolean',
      description: 'keep hostname, user name and home paths in the bundle (default: scrubbed)',
    },
    json: {
      type: 'boolean',
      description: 'NDJSON on stdout: every event as it happens, the report as the last line',
    },
    tui: { type: 'boolean', description: 'show the live dashboard while watching' },
    ...LOG_OPTIONS,
    junit: {
      type: 'string',
      valueName: 'FILE',
      description:
        'also write JUnit XML to FILE: one test case for the watch, failed when it saw xruns',
    },
    ...ROOT_OPTIONS,
  },
  async run(ctx) {
    const v = ctx.values;
    const { io } = ctx;
    const pcms = v.pcm ?? [];
    for (const p of pcms) {
      if (!/^pcmC\d+D\d+[pc]$/.test(p))
        throw new UsageError(
          `invalid --pcm "${p}": expected a kernel PCM name like pcmC0D0p (see "xrunhunt debug status")`,
        );
    }
    const durationMs = v.duration === undefined ? null : parseDuration(v.duration, '--duration');
    if (durationMs !== null && durationMs <= 0)
      throw new UsageError(`invalid --duration "${v.duration}": expected more than 0`);
    const untilXruns =
      v['until-xruns'] === undefined ? null : parseInteger(v['until-xruns'], '--until-xruns', 1);
    const mask = parseInteger(v.mask, '--mask', 0, 0xffff);
    const rankEveryMs = parseDuration(v['rank-every'], '--rank-every');
    if (rankEveryMs < 1000)
      throw new UsageError(`invalid --rank-every "${v['rank-every']}": expected 1s or more`);
    if (
      !['auto', 'xrun_debug', 'kmsg', 'journalctl', 'dmesg', 'kprobe', 'none'].includes(v.capture)
    )
      throw new UsageError(
        `invalid --capture "${v.capture}": expected auto, xrun_debug, kprobe or none (or a log source: kmsg, journalctl, dmesg)`,
      );
    if (v.json && v.tui) throw new UsageError('--json and --tui cannot be combined: choose one');
    const junit = junitPath(io.cwd, v.junit);
    const roots = { procRoot: v['proc-root'], sysRoot: v['sys-root'], bootRoot: v['boot-root'] };
    const deps = defaultWatchDeps();
    const jackServer = v['jack-server'] ?? null;
    if (jackServer !== null && !/^[\w.+-]{1,63}$/.test(jackServer))
      throw new UsageError(
        `invalid --jack-server "${jackServer}": expected a JACK server name (jackd -n NAME: letters, digits, . _ + -)`,
      );
    const jackLog = v['jack-log'] === undefined ? null : resolve(io.cwd, v['jack-log']);
    const jack =
      v.jack || jackServer !== null || jackLog !== null
        ? { server: jackServer, logFile: jackLog }
        : null;

    // Nothing is changed before we know there is something to watch.
    const targets = findWatchTargets({ pcms, roots, jack: jack !== null }, deps);

    const watchName = runFolderName(new Date(), 'watch');
    const asked = resolve(io.cwd, v.out ?? watchName);
    const journal = journalFolderFor(io);
    writeJournalFolderNotes(io, journal);
    const human = !v.json && !v.tui;
    // The log is a separate stream, only when asked for: the screen stays human. Opened
    // before anything is changed, so a bad --log-file path changes nothing.
    const log =
      v['log-file'] === undefined
        ? null
        : openDaemonLog({
            command: 'watch',
            level: v['log-level'],
            file: logFilePath(v['log-file'], io.cwd),
            stderr: io.stderr,
          });
    // Claimed once every option has been checked: a refused run creates no folder.
    const claimed = claimBundleFolder(asked, watchName);
    const outDir = claimed.dir;
    const moved = claimedFolderNote(claimed);
    if (moved !== null) io.stderr.write(`xrunhunt: note: ${moved}\n`);
    const handle = startWatch(
      {
        pcms,
        durationMs,
        untilXruns,
        mask,
        capture: v.capture,
        recorder: v.recorder as RecorderMode,
        roots,
        journalDir: journal.dir,
        journalSearchDirs: journal.searchDirs,
        outDir,
        toolVersion: toolVersion(),
        machineId: () => machineId(io.env),
        scrub: !v['no-scrub'],
        stderr: io.stderr,
        stdin: io.stdin,
        interactive: io.stderrIsTTY && (io.stdin as { isTTY?: boolean }).isTTY === true,
        progress: human && io.stderrIsTTY,
        humanOut: human ? (text) => io.stdout.write(text) : null,
        rankEveryMs,
        jack,
      },
      targets,
      ctx.signal,
      deps,
    );
    if (human) {
      io.stderr.write(
        `xrunhunt: watching ${[...targets.streams.map((s) => streamLabel(s)), ...(jack ? [`JACK (${jack.server ?? 'default server'})`] : [])].join(', ')}; events: ${outDir}/events.ndjson (Ctrl-C stops and reports)\n`,
      );
    }
    if (v.json) {
      handle.onEvent((e) => {
        if (e.type !== 'report') writeNdjson(io.stdout, e);
      });
    }
    if (log) {
      handle.onEvent((e) => {
        const rec = watchLogRecord(e);
        if (rec) log.logger[rec.level](rec.fields, rec.msg);
      });
    }
    if (v.tui) {
      preferLiveTerminal(io.stdoutIsTTY);
      const { runDashboard } = await import('../../tui/run-dashboard.js');
      await runDashboard(handle, {
        stdout: io.stdout,
        stdin: io.stdin,
        stderr: io.stderr,
        stdoutIsTTY: io.stdoutIsTTY,
      });
    }
    const { report, summary, exitCode } = await handle.outcome.finally(() => log?.close());
    if (human || (v.tui && !io.stdoutIsTTY)) io.stdout.write(renderWatchText(report, summary));
    if (junit)
      writeJunitFile(
        junit,
        renderJunit(
          `xrunhunt watch ${report.params.device}`,
          phaseCases(report, 'xrunhunt.watch'),
          report.durationMs / 1000,
        ),
      );
    return exitCode;
  },
});
