// Finds every PCM stream under <procRoot>/asound with what a user needs to recognise it (card
// id and name, driver, device, PCM name) and the xrun_debug / xrun_injection files the kernel
// offers for it. A file that cannot be read or parsed becomes a warning, never a crash:
// a half-copied tree or an odd driver must still give an answer.
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import type { CardListEntry, SubstreamStatus } from './asound-formats.js';
import {
  formatPcmName,
  parseCardsList,
  parsePcmInfo,
  parseSubstreamStatus,
  parseXrunDebugValue,
} from './asound-formats.js';
import { errnoCode, errorMessage } from '../errors.js';

export interface SubstreamInfo {
  index: number;
  dir: string;
  /** Path of subN/xrun_injection when the kernel has it (write-only: forces one xrun). */
  injectionPath: string | undefined;
  /** undefined when subN/status could not be read. */
  status: SubstreamStatus | undefined;
}

export interface PcmStreamInfo {
  /** `pcmC0D0p`: the name the kernel uses in XRUN messages. */
  pcm: string;
  card: number;
  cardId: string | undefined;
  cardName: string | undefined;
  driver: string | undefined;
  device: number;
  stream: 'playback' | 'capture';
  /** The PCM's own name from pcm*{p,c}/info (`ALC892 Analog`). */
  pcmName: string | undefined;
  dir: string;
  /** Path of xrun_debug, undefined when the kernel lacks CONFIG_SND_PCM_XRUN_DEBUG. */
  xrunDebugPath: string | undefined;
  /** Current xrun_debug value; undefined when absent or unreadable (see maskError). */
  mask: number | undefined;
  maskError: string | undefined;
  substreams: SubstreamInfo[];
}

export interface CardInfo extends Partial<CardListEntry> {
  index: number;
  dir: string;
}

export interface AsoundDiscovery {
  procRoot: string;
  asoundDir: string;
  /** Whether <procRoot>/asound exists at all (no: the kernel has no sound support loaded). */
  present: boolean;
  cards: CardInfo[];
  streams: PcmStreamInfo[];
  warnings: string[];
}

/** The file-system reads discovery needs; tests may pass a wrapper. */
export interface DiscoveryFs {
  readdir(path: string): string[];
  readFile(path: string): string;
  exists(path: string): boolean;
}

export const realDiscoveryFs: DiscoveryFs = {
  readdir: (p) => nodeFs.readdirSync(p),
  readFile: (p) => nodeFs.readFileSync(p, 'utf8'),
  exists: (p) => nodeFs.existsSync(p),
};

function describe(err: unknown): string {
  const code = errnoCode(err);
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied (needs root)';
  if (code === 'EISDIR') return 'is a directory, expected a file';
  if (code === 'ENOENT') return 'does not exist';
  return errorMessage(err);
}

const byNumber = (prefix: string) => (a: string, b: string) =>
  Number(a.slice(prefix.length).replace(/\D.*$/, '')) -
  Number(b.slice(prefix.length).replace(/\D.*$/, ''));

/** Discovers cards, PCM streams and their debug files under `procRoot` (default /proc). */
export function discoverAsound(
  procRoot = '/proc',
  fs: DiscoveryFs = realDiscoveryFs,
): AsoundDiscovery {
  const asoundDir = join(procRoot, 'asound');
  const warnings: string[] = [];
  const result: AsoundDiscovery = {
    procRoot,
    asoundDir,
    present: false,
    cards: [],
    streams: [],
    warnings,
  };
  let top: string[];
  try {
    top = fs.readdir(asoundDir);
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') warnings.push(`${asoundDir}: ${describe(err)}`);
    return result;
  }
  result.present = true;

  const listed = new Map<number, CardListEntry>();
  try {
    const parsed = parseCardsList(fs.readFile(join(asoundDir, 'cards')));
    for (const c of parsed.cards) listed.set(c.index, c);
    warnings.push(...parsed.warnings.map((w) => `${join(asoundDir, 'cards')}: ${w}`));
  } catch (err) {
    warnings.push(`${join(asoundDir, 'cards')}: ${describe(err)}`);
  }

  for (const cardDirName of top.filter((n) => /^card\d+$/.test(n)).sort(byNumber('card'))) {
    const index = Number(cardDirName.slice(4));
    const dir = join(asoundDir, cardDirName);
    const entry = listed.get(index);
    let id = entry?.id;
    try {
      const text = fs.readFile(join(dir, 'id')).trim();
      if (text !== '') id = text;
    } catch (err) {
      if (entry === undefined) warnings.push(`${join(dir, 'id')}: ${describe(err)}`);
    }
    const card: CardInfo = { ...entry, index, dir, ...(id !== undefined ? { id } : {}) };
    result.cards.push(card);
    let names: string[];
    try {
      names = fs.readdir(dir);
    } catch (err) {
      warnings.push(`${dir}: ${describe(err)}`);
      continue;
    }
    for (const pcmDirName of names.filter((n) => /^pcm\d+[pc]$/.test(n)).sort(byNumber('pcm'))) {
      result.streams.push(discoverStream(fs, card, join(dir, pcmDirName), pcmDirName, warnings));
    }
  }
  return result;
}

function discoverStream(
  fs: DiscoveryFs,
  card: CardInfo,
  dir: string,
  dirName: string,
  warnings: string[],
): PcmStreamInfo {
  const device = Number(/^pcm(\d+)/.exec(dirName)![1]);
  const stream = dirName.endsWith('p') ? 'playback' : 'capture';
  let pcmName: string | undefined;
  try {
    const parsed = parsePcmInfo(fs.readFile(join(dir, 'info')));
    pcmName = parsed.info.name ?? parsed.info.id;
    warnings.push(...parsed.warnings.map((w) => `${join(dir, 'info')}: ${w}`));
  } catch (err) {
    warnings.push(`${join(dir, 'info')}: ${describe(err)}`);
  }
  const xrunDebugPath = join(dir, 'xrun_debug');
  const hasXrunDebug = fs.exists(xrunDebugPath);
  let mask: number | undefined;
  let maskError: string | undefined;
  if (hasXrunDebug) {
    try {
      const text = fs.readFile(xrunDebugPath);
      mask = parseXrunDebugValue(text);
      if (mask === undefined) {
        maskError = `expected an integer, found ${JSON.stringify(text.slice(0, 40))}`;
        warnings.push(`${xrunDebugPath}: ${maskError}`);
      }
    } catch (err) {
      maskError = describe(err);
      warnings.push(`${xrunDebugPath}: ${maskError}`);
    }
  }
  const substreams: SubstreamInfo[] = [];
  let entries: string[] = [];
  try {
    entries = fs.readdir(dir);
  } catch (err) {
    warnings.push(`${dir}: ${describe(err)}`);
  }
  for (const sub of entries.filter((n) => /^sub\d+$/.test(n)).sort(byNumber('sub'))) {
    const subDir = join(dir, sub);
    const injection = join(subDir, 'xrun_injection');
    let status: SubstreamStatus | undefined;
    try {
      status = parseSubstreamStatus(fs.readFile(join(subDir, 'status')));
    } catch {
      status = undefined;
    }
    substreams.push({
      index: Number(sub.slice(3)),
      dir: subDir,
      injectionPath: fs.exists(injection) ? injection : undefined,
      status,
    });
  }
  return {
    pcm: formatPcmName(card.index, device, stream),
    card: card.index,
    cardId: card.id,
    cardName: card.shortName ?? card.longName,
    driver: card.driver,
    device,
    stream,
    pcmName,
    dir,
    xrunDebugPath: hasXrunDebug ? xrunDebugPath : undefined,
    mask,
    maskError,
    substreams,
  };
}

/** Picks the streams a `--pcm` / `--card` selection names; throws a usage-style message list on no match. */
export function selectStreams(
  streams: PcmStreamInfo[],
  selection: { pcm?: string[]; card?: string },
): PcmStreamInfo[] {
  let out = streams;
  if (selection.card !== undefined) {
    const c = selection.card;
    out = out.filter((s) => (/^\d+$/.test(c) ? s.card === Number(c) : s.cardId === c));
  }
  if (selection.pcm !== undefined && selection.pcm.length > 0) {
    const wanted = new Set(selection.pcm);
    out = out.filter((s) => wanted.has(s.pcm));
  }
  return out;
}
