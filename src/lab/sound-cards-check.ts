// Before a boot: does the guest kernel have the drivers of the requested cards? Reads the
// kernel's config (the cached build's, or the file beside a user's bzImage) and fails with the
// missing driver named, instead of a guest where the card silently never appears.
import { existsSync, readFileSync } from 'node:fs';
import { configCandidates } from './user-kernel.js';
import { findMissingCardDrivers, missingCardDriverError } from './sound-cards.js';
import type { SoundCardName } from './sound-cards.js';

/** What the check read: the config file used, or null when none was found (unchecked). */
export interface CardDriverCheck {
  configSource: string | null;
}

// Throws an XrunhuntError naming each missing driver option; returns where the config came from.
export function checkCardDrivers(
  cards: readonly SoundCardName[],
  bzImage: string,
  configPath: string | undefined,
): CardDriverCheck {
  const candidates = configPath !== undefined ? [configPath] : configCandidates(bzImage);
  const source = candidates.find((c) => existsSync(c));
  if (source === undefined) return { configSource: null };
  const missing = findMissingCardDrivers(cards, readFileSync(source, 'utf8'));
  if (missing.length > 0) throw missingCardDriverError(missing, bzImage, source);
  return { configSource: source };
}
