// Finds the PCM substreams that are playing (or recording) right now, with who owns them
// and how they are configured: subN/status `state: RUNNING` + owner_pid, subN/hw_params,
// subN/sw_params, and the owner's name from /proc/<pid>/comm. Reads go through one
// function so fake trees (tests, --proc-root) and the real /proc behave the same.
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import type { AsoundDiscovery } from '../proc/index.js';
import { kernelReporting, type KernelReporting } from './hidden-xruns.js';
import {
  parseHwParams,
  parseStreamStatus,
  parseSwParams,
  type StreamHwParams,
  type StreamStatus,
  type StreamSwParams,
} from './stream-proc-formats.js';

/** One open substream with its owner and configuration. */
export interface WatchedStream {
  /** Kernel PCM name as XRUN dumps print it: `pcmC0D0p`. */
  pcm: string;
  substream: number;
  card: number;
  device: number;
  direction: 'playback' | 'capture';
  cardId: string | null;
  cardName: string | null;
  driver: string | null;
  pcmName: string | null;
  ownerPid: number | null;
  /** Process name of the owner (`pipewire`, `jackd`, `aplay`), null when unknown. */
  owner: string | null;
  status: StreamStatus;
  hw: StreamHwParams;
  sw: StreamSwParams;
  /** Buffer length in ms (null: hw_params unreadable). */
  bufferMs: number | null;
  /** Whether an underrun of this stream reaches the kernel's XRUN reporting at all. */
  kernel: KernelReporting;
  statusPath: string;
  xrunDebugPath: string | null;
}

/** Every open substream, and which of them run. */
export interface StreamScan {
  asoundPresent: boolean;
  /** PCM streams (pcmCxDy[pc]) the kernel has. */
  pcmCount: number;
  /** Open substreams in state RUNNING (or XRUN / DRAINING: still playing). */
  running: WatchedStream[];
  /** Open substreams that are not playing (SETUP, PREPARED, PAUSED, SUSPENDED...). */
  idle: WatchedStream[];
}

/** Reads a file's text, undefined when it cannot be read. */
export type ReadText = (path: string) => string | undefined;

const PLAYING = new Set(['RUNNING', 'XRUN', 'DRAINING']);

/** Reads one substream's status, hw_params and sw_params and its owner's name. */
export function readWatchedStream(
  base: Omit<WatchedStream, 'status' | 'hw' | 'sw' | 'bufferMs' | 'kernel' | 'owner' | 'ownerPid'>,
  subDir: string,
  procRoot: string,
  read: ReadText,
): WatchedStream {
  const status = parseStreamStatus(read(join(subDir, 'status')) ?? '');
  const hw = parseHwParams(read(join(subDir, 'hw_params')) ?? '');
  const sw = parseSwParams(read(join(subDir, 'sw_params')) ?? '');
  const ownerPid = status.ownerPid ?? null;
  const comm = ownerPid === null ? undefined : read(join(procRoot, String(ownerPid), 'comm'));
  const bufferMs =
    hw.bufferFrames !== undefined && hw.rateHz ? (hw.bufferFrames * 1000) / hw.rateHz : null;
  return {
    ...base,
    ownerPid,
    owner: comm?.trim() || null,
    status,
    hw,
    sw,
    bufferMs,
    kernel: kernelReporting(hw, sw),
  };
}

/** Lists the open substreams of every discovered PCM. */
export function scanStreams(
  discovery: AsoundDiscovery,
  procRoot: string,
  read: ReadText,
): StreamScan {
  const running: WatchedStream[] = [];
  const idle: WatchedStream[] = [];
  for (const s of discovery.streams) {
    for (const sub of s.substreams) {
      if (!sub.status?.open) continue;
      const w = readWatchedStream(
        {
          pcm: s.pcm,
          substream: sub.index,
          card: s.card,
          device: s.device,
          direction: s.stream,
          cardId: s.cardId ?? null,
          cardName: s.cardName ?? null,
          driver: s.driver ?? null,
          pcmName: s.pcmName ?? null,
          statusPath: join(sub.dir, 'status'),
          xrunDebugPath: s.xrunDebugPath ?? null,
        },
        sub.dir,
        procRoot,
        read,
      );
      (PLAYING.has(w.status.state) ? running : idle).push(w);
    }
  }
  return { asoundPresent: discovery.present, pcmCount: discovery.streams.length, running, idle };
}

/** `pcmC0D0p sub0 (aplay, pid 812)`: how a stream is named in every message. */
export function streamLabel(
  w: Pick<WatchedStream, 'pcm' | 'substream' | 'owner' | 'ownerPid'>,
): string {
  const who =
    w.owner !== null || w.ownerPid !== null
      ? ` (${[w.owner, w.ownerPid !== null ? `pid ${w.ownerPid}` : null].filter(Boolean).join(', ')})`
      : '';
  return `${w.pcm}${w.substream > 0 ? ` sub${w.substream}` : ''}${who}`;
}

/** Process names of sound servers and audio programs that hold PCMs for other clients. */
export const SOUND_SERVER_NAMES = /^(jackd|jackdbus|pipewire|pulseaudio|pipewire-pulse)$/;

/** A running sound server (found by its /proc/<pid>/comm). */
export interface RunningServer {
  pid: number;
  comm: string;
}

/** Finds the sound servers among `procRoot`'s processes (for the "nothing to watch" message). */
export function findSoundServers(
  procRoot: string,
  readdir: (path: string) => string[],
  read: ReadText,
): RunningServer[] {
  let names: string[] = [];
  try {
    names = readdir(procRoot);
  } catch {
    return [];
  }
  const out: RunningServer[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const comm = read(join(procRoot, n, 'comm'))?.trim();
    if (comm && SOUND_SERVER_NAMES.test(comm)) out.push({ pid: Number(n), comm });
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** `jackd (pid 812) is running but …`: why a running server is not a kernel stream. */
function serversNote(servers: readonly RunningServer[]): string {
  if (servers.length === 0) return '';
  const list = servers.map((s) => `${s.comm} (pid ${s.pid})`).join(', ');
  return `; ${list} ${servers.length === 1 ? 'is' : 'are'} running but ${servers.length === 1 ? 'holds' : 'hold'} no kernel PCM open (a dummy/network backend, or suspended while idle)`;
}

/**
 * Narrows a scan to `--pcm` names and returns the streams to watch; throws the plain
 * "nothing to watch" error (exit 1) with the reason and what to do.
 */
export function chooseStreams(
  scan: StreamScan,
  pcms: readonly string[],
  procRoot: string,
  knownPcms: readonly string[],
  servers: readonly RunningServer[] = [],
): WatchedStream[] {
  if (!scan.asoundPresent) {
    throw new XrunhuntError(
      'not-found',
      `no kernel stream to watch: ${procRoot}/asound does not exist (this kernel has no sound card or no ALSA support loaded)${serversNote(servers)}`,
      {
        hint: 'watch diagnoses audio played to a kernel sound card; a JACK dummy or network-only setup has none. Measure userspace xruns with "xrunhunt session --device plug:jack", or use "xrunhunt lab" for a kernel with a sound card',
      },
    );
  }
  const unknown = pcms.filter((p) => !knownPcms.includes(p));
  if (unknown.length > 0) {
    throw new XrunhuntError(
      'not-found',
      `--pcm ${unknown.join(', ')}: no such PCM under ${procRoot}/asound (it has ${knownPcms.join(', ') || 'none'})`,
      { hint: 'run "xrunhunt debug status" for the streams this kernel has' },
    );
  }
  const wanted = (w: WatchedStream): boolean => pcms.length === 0 || pcms.includes(w.pcm);
  const chosen = scan.running.filter(wanted);
  if (chosen.length > 0) return chosen;
  const where = pcms.length ? pcms.join(', ') : `${scan.pcmCount} PCM stream(s)`;
  const idle = scan.idle.filter(wanted);
  const found =
    idle.length > 0
      ? `open but not playing: ${idle.map((w) => `${streamLabel(w)} is ${w.status.state}`).join('; ')}`
      : scan.pcmCount === 0
        ? 'the kernel has sound support but no PCM devices'
        : 'every substream is closed';
  throw new XrunhuntError(
    'not-found',
    `nothing is playing on ${where}: ${found}${serversNote(servers)}`,
    {
      hint: 'start the audio you want to diagnose first (your player, PipeWire, jackd, the DAW), then run watch while it plays; watch only observes, it plays nothing itself ("xrunhunt session" plays a test tone)',
    },
  );
}
