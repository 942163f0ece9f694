// IO shell around explainXrunDebugAbsence: reads the kernel release and config for it.
import type { AsoundDiscovery } from './discover-asound.js';
import { readKernelConfig, readKernelRelease } from './kernel-config.js';
import type { XrunDebugAbsence } from './xrun-debug-absence.js';
import { explainXrunDebugAbsence } from './xrun-debug-absence.js';

/** Explains a discovery that found no xrun_debug file, reading the kernel config as needed. */
export function whyNoXrunDebug(
  discovery: AsoundDiscovery,
  roots: { bootRoot?: string } = {},
): XrunDebugAbsence {
  const release = readKernelRelease(discovery.procRoot);
  const read = readKernelConfig({
    procRoot: discovery.procRoot,
    bootRoot: roots.bootRoot ?? '/boot',
    release,
  });
  return explainXrunDebugAbsence({
    procRoot: discovery.procRoot,
    asoundPresent: discovery.present,
    cardCount: discovery.cards.length,
    streamCount: discovery.streams.length,
    kernelRelease: release,
    config: read.config,
    configSource: read.source,
    configTried: read.tried,
  });
}
