// Picks the live kernel-log capture for a session: /dev/kmsg, else `journalctl -k -f`,
// else `dmesg -W`, else none — with the reason each better one was unavailable, so the
// report can say plainly what could not be seen.
import { execFile } from 'node:child_process';
import { errnoCode, errorMessage, UsageError } from '../errors.js';
import type {
  CaptureCandidate,
  CaptureSourceName,
  KernelCaptureSource,
} from './source-contract.js';
import { createKmsgSource, openKmsgDevice } from './source-kmsg.js';
import { createProcessSource } from './source-process.js';

/** Values `--capture` accepts (kprobe is added by the kprobe source when present). */
export const CAPTURE_CHOICES = [
  'auto',
  'xrun_debug',
  'kmsg',
  'journalctl',
  'dmesg',
  'none',
] as const;

/** A probe that takes longer than this is treated as unavailable (journalctl on a huge journal). */
const PROBE_TIMEOUT_MS = 3000;

export interface SelectedCapture {
  source: KernelCaptureSource | null;
  name: CaptureSourceName;
  /** Why better sources were skipped ("kmsg: EACCES ..."). */
  skipped: string[];
}

/** Runs a short command to see whether a follower can work here. */
async function probeCommand(
  cmd: string,
  args: string[],
): Promise<{ ok: boolean; stdout: string; error: string | null }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: PROBE_TIMEOUT_MS }, (err, stdout, stderr) => {
      resolve({
        ok: !err,
        stdout,
        error: err ? (errnoCode(err) ?? (stderr.trim() || err.message)) : null,
      });
    });
  });
}

/** The default candidates in order of preference, each opened for real. */
export function defaultCaptureCandidates(kmsgPath = '/dev/kmsg'): CaptureCandidate[] {
  return [
    {
      name: 'kmsg',
      async open() {
        try {
          return createKmsgSource({ device: await openKmsgDevice(kmsgPath) });
        } catch (err) {
          const code = (err as { code?: string }).code ?? String(err);
          return {
            unavailable: `cannot open ${kmsgPath} (${code})${code === 'EACCES' || code === 'EPERM' ? ': run as root or set kernel.dmesg_restrict=0' : ''}`,
          };
        }
      },
    },
    {
      name: 'journalctl',
      async open() {
        // journalctl follows happily even when it has no journal: check it has kernel lines.
        const probe = await probeCommand('journalctl', ['-k', '-n', '1', '-q', '--no-pager']);
        return probe.ok && probe.stdout.trim()
          ? createProcessSource({ name: 'journalctl' })
          : {
              unavailable: `journalctl has no kernel messages${probe.error ? ` (${probe.error})` : ''}`,
            };
      },
    },
    {
      name: 'dmesg',
      async open() {
        const probe = await probeCommand('dmesg', ['--help']);
        return probe.ok && probe.stdout.includes('--follow-new')
          ? createProcessSource({ name: 'dmesg' })
          : {
              unavailable: `dmesg cannot follow new messages${probe.error ? ` (${probe.error})` : ''}`,
            };
      },
    },
  ];
}

/**
 * Opens and starts the first working candidate allowed by `capture`
 * ('auto'/'xrun_debug' = any in order, a name = only that one, 'none' = nothing).
 */
export async function selectCapture(
  capture: string,
  signal: AbortSignal,
  candidates: CaptureCandidate[] = defaultCaptureCandidates(),
): Promise<SelectedCapture> {
  const skipped: string[] = [];
  if (capture === 'none') return { source: null, name: 'none', skipped };
  const any = capture === 'auto' || capture === 'xrun_debug';
  const allowed = candidates.filter((c) => any || c.name === capture);
  if (allowed.length === 0) {
    throw new UsageError(
      `unknown --capture "${capture}": expected one of ${[...CAPTURE_CHOICES, ...candidates.map((c) => c.name)].filter((v, i, a) => a.indexOf(v) === i).join(', ')}`,
    );
  }
  for (const c of allowed) {
    const opened = await c.open();
    if ('unavailable' in opened) {
      skipped.push(`${c.name}: ${opened.unavailable}`);
      continue;
    }
    try {
      await opened.start(signal);
      return { source: opened, name: c.name, skipped };
    } catch (err) {
      skipped.push(`${c.name}: ${errorMessage(err)}`);
      await opened.close().catch(() => undefined);
    }
  }
  return { source: null, name: 'none', skipped };
}
