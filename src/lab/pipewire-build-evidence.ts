// What shows that PipeWire really runs in the asked scheduling mode in the lab guest, read from
// the files of one run: the ALSA plugin's format line in pipewire.log (`… batch:0 tsched:0`),
// the stream's hw_params/sw_params from /proc/asound, and the card's interrupt count in
// /proc/interrupts read twice. Pure: texts in, numbers out (lab tests and docs/lab.md use them).

/** The ALSA plugin's set-format line (PipeWire 1.x, info level of spa.alsa). */
export interface AlsaFormatLine {
  bufferFrames: number;
  periodFrames: number;
  periods: number;
  batch: boolean;
  /** true: timer-based scheduling; false: woken by the period interrupt (IRQ mode). */
  tsched: boolean;
}

// Every set-format line of a pipewire.log (one per open of the device).
export function alsaFormatLines(log: string): AlsaFormatLine[] {
  const out: AlsaFormatLine[] = [];
  const re =
    /buffer frames (\d+), period frames (\d+), periods (\d+),.*\bbatch:(\d+) tsched:(\d+)/g;
  for (const m of log.matchAll(re)) {
    out.push({
      bufferFrames: Number(m[1]),
      periodFrames: Number(m[2]),
      periods: Number(m[3]),
      batch: m[4] !== '0',
      tsched: m[5] !== '0',
    });
  }
  return out;
}

// The `key: value` lines of a /proc/asound/…/hw_params or sw_params text, numbers where numeric.
export function procParams(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+):\s*(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

// The section of pipewire-setup.txt after `== name` up to the next `== ` line.
export function setupSection(setup: string, name: string): string {
  const lines = setup.split('\n');
  const start = lines.findIndex((l) => l.trim() === `== ${name}`);
  if (start < 0) return '';
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => l.startsWith('== '));
  return (end < 0 ? rest : rest.slice(0, end)).join('\n');
}

// Total interrupts (all CPUs) of the lines of /proc/interrupts whose name matches `name`
// (`snd_hda_intel:card2`, `xhci_hcd`); null when no line matches.
export function interruptCount(procInterrupts: string, name: RegExp): number | null {
  let total: number | null = null;
  const lines = procInterrupts.split('\n');
  const cpus = (lines[0] ?? '')
    .trim()
    .split(/\s+/)
    .filter((c) => /^CPU\d+$/.test(c)).length;
  for (const line of lines.slice(1)) {
    if (!name.test(line)) continue;
    const fields = line.trim().split(/\s+/);
    const counts = fields.slice(1, 1 + Math.max(cpus, 1)).map(Number);
    if (counts.some((n) => !Number.isFinite(n))) continue;
    total = (total ?? 0) + counts.reduce((a, b) => a + b, 0);
  }
  return total;
}

// Interrupts per second of one card between two reads `seconds` apart, and as a share of the
// period rate (rateHz / periodFrames): ~1 when every period raises an interrupt, ~0 with
// period wake-ups off (timer mode on a driver that allows it).
export function interruptRate(
  before: string,
  after: string,
  seconds: number,
  name: RegExp,
  periodHz: number,
): { perSecond: number; ofPeriodRate: number } | null {
  const a = interruptCount(before, name);
  const b = interruptCount(after, name);
  if (a === null || b === null || !(seconds > 0)) return null;
  const perSecond = (b - a) / seconds;
  return { perSecond, ofPeriodRate: perSecond / periodHz };
}
