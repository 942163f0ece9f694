// Pure parsers for the text files under /proc/asound. The kernel's formats have shifted
// over the years (owner_pid appeared in 4.x, the cards list gained long names in 2.6), and a
// copied tree may be truncated or edited, so every parser tolerates garbage: it returns what
// it could read plus warnings, and never throws.

/** One entry of /proc/asound/cards. */
export interface CardListEntry {
  index: number;
  id: string;
  driver: string;
  shortName: string;
  longName: string | undefined;
}

// ` 0 [PCH            ]: HDA-Intel - HDA Intel PCH` (sound/core/init.c card_info_read)
const CARD_LINE = /^\s*(\d+)\s+\[([^\]]*)\]\s*:\s*(.*?)\s+-\s+(.*)$/;

/** Parses /proc/asound/cards: index, id, driver, short name, and the long name on the next line. */
export function parseCardsList(text: string): { cards: CardListEntry[]; warnings: string[] } {
  const cards: CardListEntry[] = [];
  const warnings: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || /^\s*---\s*no soundcards\s*---/.test(line)) continue;
    const m = CARD_LINE.exec(line);
    if (m) {
      const next = lines[i + 1];
      const longName =
        next !== undefined && next.trim() !== '' && !CARD_LINE.test(next) ? next.trim() : undefined;
      if (longName !== undefined) i++;
      cards.push({
        index: Number(m[1]),
        id: m[2]!.trim(),
        driver: m[3]!.trim(),
        shortName: m[4]!.trim(),
        longName,
      });
    } else {
      warnings.push(`cards: unrecognised line ${i + 1}: ${JSON.stringify(line.slice(0, 80))}`);
    }
  }
  return { cards, warnings };
}

/** Fields of a pcm*{p,c}/info file that xrunhunt uses. */
export interface PcmInfo {
  card: number | undefined;
  device: number | undefined;
  stream: 'playback' | 'capture' | undefined;
  id: string | undefined;
  name: string | undefined;
  subdevicesCount: number | undefined;
}

/** Splits `key: value` lines (keys may be padded with spaces, as in subN/status). */
export function parseKeyValueLines(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    const idx = line.indexOf(':');
    if (idx <= 0) continue;
    const key = line.slice(0, idx).trim();
    if (key === '' || /\s/.test(key)) continue;
    if (!map.has(key)) map.set(key, line.slice(idx + 1).trim());
  }
  return map;
}

function intOrUndefined(v: string | undefined): number | undefined {
  if (v === undefined || !/^-?\d+$/.test(v)) return undefined;
  return Number(v);
}

/** Parses pcm*{p,c}/info (sound/core/pcm.c snd_pcm_proc_info_read). */
export function parsePcmInfo(text: string): { info: PcmInfo; warnings: string[] } {
  const kv = parseKeyValueLines(text);
  const warnings: string[] = [];
  const streamText = kv.get('stream')?.toUpperCase();
  const stream =
    streamText === 'PLAYBACK' ? 'playback' : streamText === 'CAPTURE' ? 'capture' : undefined;
  if (kv.size === 0) warnings.push('info: no "key: value" lines');
  return {
    info: {
      card: intOrUndefined(kv.get('card')),
      device: intOrUndefined(kv.get('device')),
      stream,
      id: kv.get('id') || undefined,
      name: kv.get('name') || undefined,
      subdevicesCount: intOrUndefined(kv.get('subdevices_count')),
    },
    warnings,
  };
}

/** What subN/status says about who has a substream open. */
export interface SubstreamStatus {
  open: boolean;
  state: string | undefined;
  ownerPid: number | undefined;
}

/** Parses subN/status: `closed`, or `state: RUNNING` + `owner_pid   : 1234` (4.x+). */
export function parseSubstreamStatus(text: string): SubstreamStatus {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'closed')
    return { open: false, state: undefined, ownerPid: undefined };
  const kv = parseKeyValueLines(text);
  const state = kv.get('state');
  const pid = intOrUndefined(kv.get('owner_pid'));
  return {
    open: state !== undefined || pid !== undefined,
    state,
    ownerPid: pid !== undefined && pid > 0 ? pid : undefined,
  };
}

/** Parses the integer in an xrun_debug file (`%d\n`); undefined for anything else. */
export function parseXrunDebugValue(text: string): number | undefined {
  const first = text.split('\n')[0]?.trim() ?? '';
  if (!/^\d+$/.test(first)) return undefined;
  const n = Number(first);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Splits `pcmC0D3p` into card, device and stream; undefined when it is not a PCM name. */
export function parsePcmName(
  name: string,
): { card: number; device: number; stream: 'playback' | 'capture' } | undefined {
  const m = /^pcmC(\d+)D(\d+)([pc])$/.exec(name);
  if (!m) return undefined;
  return {
    card: Number(m[1]),
    device: Number(m[2]),
    stream: m[3] === 'p' ? 'playback' : 'capture',
  };
}

/** Builds the ALSA device-node style name (`pcmC0D0p`) users see in kernel logs. */
export function formatPcmName(
  card: number,
  device: number,
  stream: 'playback' | 'capture',
): string {
  return `pcmC${card}D${device}${stream === 'playback' ? 'p' : 'c'}`;
}
