// Which streams a `debug on/off/inject` acts on: those of the discovery that have xrun_debug,
// narrowed by --pcm/--card. No stream at all is explained (the kernel options that are
// missing); a selection that matches nothing names the streams that exist.
import { UsageError, XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import type { AsoundDiscovery, PcmStreamInfo } from './discover-asound.js';
import { discoverAsound, selectStreams } from './discover-asound.js';
import { whyNoXrunDebug } from './why-no-xrun-debug.js';

export interface StreamSelection {
  pcm?: string[] | undefined;
  card?: string | undefined;
}

/** Picks the selected streams that have xrun_debug from a discovery; throws (explained) when none. */
export function selectDebuggableStreams(
  discovery: AsoundDiscovery,
  bootRoot: string,
  selection: StreamSelection,
): PcmStreamInfo[] {
  const withFile = discovery.streams.filter((s) => s.xrunDebugPath !== undefined);
  if (withFile.length === 0) {
    const why = whyNoXrunDebug(discovery, { bootRoot });
    throw new XrunhuntError('unsupported', why.message, { hint: why.hint });
  }
  const selected = selectStreams(withFile, selection);
  if (selected.length === 0) {
    const names = withFile
      .map((s) => `${s.pcm} (card ${s.card} ${s.cardId ?? ''})`.trim())
      .join(', ');
    const asked = [
      selection.pcm?.length ? `--pcm ${selection.pcm.join(' ')}` : '',
      selection.card !== undefined ? `--card ${selection.card}` : '',
    ]
      .filter((x) => x !== '')
      .join(' ');
    throw new UsageError(
      `no stream with xrun_debug matches ${quoteUntrusted(asked)}; streams with xrun_debug: ${quoteUntrusted(names)}`,
    );
  }
  return selected;
}

/** Discovers the streams under `procRoot` and selects those `debug` may change. */
export function debuggableStreams(
  procRoot: string,
  bootRoot: string,
  selection: StreamSelection,
): { discovery: AsoundDiscovery; streams: PcmStreamInfo[] } {
  const discovery = discoverAsound(procRoot);
  return { discovery, streams: selectDebuggableStreams(discovery, bootRoot, selection) };
}
