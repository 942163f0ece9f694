// Pure helpers for the kprobe capture backend (platform-facts §5b): which xrun symbol the
// running kernel lets us probe, the kprobe definition, whether the probe is armed, lockdown,
// and module symbols snapshotted while recording (ftrace resolves stack addresses when the
// trace is READ, so a module unloaded before the read leaves raw `0xffffffffc…` frames).
// Text in, values out: the IO lives in tracefs-io.ts and source-kprobe.ts.

/** The tracefs group and event name of xrunhunt's probe (`p:xrunhunt/xrun …`). */
export const KPROBE_GROUP = 'xrunhunt';
export const KPROBE_EVENT = 'xrun';
/** The tracing instance xrunhunt records into, so the user's own trace buffer stays untouched. */
export const TRACE_INSTANCE = 'xrunhunt';

/** SNDRV_PCM_STATE_XRUN (include/uapi/sound/asound.h): the state snd_pcm_stop gets at an xrun. */
export const SNDRV_PCM_STATE_XRUN = 4;

/** One way to see every xrun: the function to probe and, for a shared path, the filter on its args. */
export interface XrunProbePoint {
  symbol: string;
  /** Fetch args appended to the definition (e.g. `state=%si:s32`). */
  fetchArgs: string;
  /** Event filter / trigger condition; null when every hit is an xrun. */
  filter: string | null;
  /** Said in reports: why this point sees xruns. */
  note: string;
}

/**
 * Probe points in order of preference. `__snd_pcm_xrun` is what every xrun goes through (and what
 * xrun_debug itself hooks) since 4.x; older kernels reach the stop through `snd_pcm_stop(substream,
 * SNDRV_PCM_STATE_XRUN)`, whose second argument (x86_64: %si) tells an xrun from a normal stop.
 */
export const XRUN_PROBE_POINTS: readonly XrunProbePoint[] = [
  {
    symbol: '__snd_pcm_xrun',
    fetchArgs: '',
    filter: null,
    note: '__snd_pcm_xrun (every XRUN passes through it)',
  },
  {
    symbol: 'snd_pcm_stop',
    fetchArgs: 'state=%si:s32',
    filter: `state==${SNDRV_PCM_STATE_XRUN}`,
    note: `snd_pcm_stop filtered on state ${SNDRV_PCM_STATE_XRUN} (XRUN): __snd_pcm_xrun is not probeable here`,
  },
];

/**
 * Fetch args naming the stream from the first argument (struct snd_pcm_substream *): card number
 * (substream->pcm->card->number), device (pcm->device at 24), substream number (24), direction
 * (stream at 60) and the card id string (card->id at 4) used to check the offsets at run time.
 * Measured on 6.1 x86_64 (platform-facts §5b); these leading fields have kept their layout
 * for many releases, and the card id check catches a kernel where they moved.
 */
export const STREAM_FETCH_ARGS =
  'card=+0(+0(+0(%di))):s32 dev=+24(+0(%di)):s32 sub=+24(%di):s32 stream=+60(%di):s32 cardid=+4(+0(+0(%di))):string';

// Builds the line appended to kprobe_events (always appended: `>` deletes every probe).
// Registers are x86_64's; elsewhere the portable $argN names are used.
export function kprobeDefinition(point: XrunProbePoint, streamArgs = false, arch = 'x64'): string {
  const parts = [point.fetchArgs, streamArgs ? STREAM_FETCH_ARGS : ''].filter((a) => a !== '');
  let args = parts.length ? ` ${parts.join(' ')}` : '';
  if (arch !== 'x64') args = args.replaceAll('%di', '$arg1').replaceAll('%si', '$arg2');
  return `p:${KPROBE_GROUP}/${KPROBE_EVENT} ${point.symbol}${args}`;
}

/** Card number → id from /proc/asound/cards (` 0 [Dummy          ]: Dummy - Dummy`). */
export function parseAsoundCards(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+) \[(\S+)\s*\]:/.exec(line);
    if (m) out.set(Number(m[1]), m[2]!);
  }
  return out;
}

const STREAM_ARGS_RE = / card=(-?\d+) dev=(-?\d+) sub=(-?\d+) stream=(-?\d+) cardid="([^"]*)"/;

/**
 * Checks the stream fetch args of a probe hit against the real cards: 'ok' when card N has the
 * id the probe read, 'mismatch' when the offsets are wrong for this kernel, 'none' without args.
 */
export function checkStreamArgs(
  line: string,
  cards: ReadonlyMap<number, string>,
): 'ok' | 'mismatch' | 'none' {
  const m = STREAM_ARGS_RE.exec(line);
  if (!m) return 'none';
  const card = Number(m[1]);
  const stream = Number(m[4]);
  const ok = cards.get(card) === m[5] && (stream === 0 || stream === 1) && Number(m[2]) >= 0;
  return ok ? 'ok' : 'mismatch';
}

// Drops the stream fetch args from a probe hit (when the check says they cannot be trusted).
export function stripStreamArgs(line: string): string {
  return line.replace(STREAM_ARGS_RE, '');
}

// The line that removes the probe again (teardown and the crash journal).
export function kprobeRemoval(): string {
  return `-:${KPROBE_GROUP}/${KPROBE_EVENT}`;
}

// The trigger line: a stack trace at every hit (or only at hits that pass the filter).
export function stacktraceTrigger(point: XrunProbePoint): string {
  return point.filter ? `stacktrace if ${point.filter}` : 'stacktrace';
}

/**
 * Which of the given symbols /proc/kallsyms lists as text (`t`/`T`), by name. Module symbols
 * carry a `\t[module]` suffix; `.cold`/`.isra` clones are different names and do not count.
 */
export function findTextSymbols(kallsyms: string, names: readonly string[]): Set<string> {
  // Searched name by name, not line by line: the file is ~200,000 lines on a Debian kernel, and
  // splitting it made 200,000 strings for two names (0.6 s in the lab's emulated guest).
  const found = new Set<string>();
  for (const name of names) {
    // "ffffffff8172e5d0 T __snd_pcm_xrun" or "... t __snd_pcm_xrun\t[snd_pcm]"
    const needle = ` ${name}`;
    for (let at = kallsyms.indexOf(needle); at >= 0; at = kallsyms.indexOf(needle, at + 1)) {
      const end = at + needle.length;
      const next = kallsyms.charAt(end);
      if (next !== '' && next !== '\n' && next !== '\t' && next !== '\r') continue;
      const type = kallsyms.charAt(at - 1);
      if ((type !== 't' && type !== 'T') || kallsyms.charAt(at - 2) !== ' ') continue;
      const lineStart = kallsyms.lastIndexOf('\n', at) + 1;
      if (kallsyms.indexOf(' ', lineStart) !== at - 2) continue; // the name is the third field
      found.add(name);
      break;
    }
  }
  return found;
}

/** Names listed in /sys/kernel/debug/kprobes/blacklist (`0x…-0x…\tname`). */
export function parseKprobeBlacklist(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^\S+\s+(\S+)/.exec(line.trim());
    if (m) out.add(m[1]!);
  }
  return out;
}

// Chooses the first probe point the kernel has and does not blacklist (null: none).
export function chooseProbePoint(
  textSymbols: ReadonlySet<string>,
  blacklist: ReadonlySet<string>,
): XrunProbePoint | null {
  for (const p of XRUN_PROBE_POINTS) {
    if (textSymbols.has(p.symbol) && !blacklist.has(p.symbol)) return p;
  }
  return null;
}

export type ProbeArmState = 'armed' | 'disabled' | 'gone' | 'absent';

/**
 * Reads /sys/kernel/debug/kprobes/list for a probe on `symbol`: `ffffffff… k __snd_pcm_xrun+0x0
 * [FTRACE]` is armed; `[DISABLED]`/`[GONE]` are not (a `MOD:SYM` probe on a built-in symbol is
 * accepted by kprobe_events but never armed: platform-facts §5b).
 */
export function parseKprobeList(text: string, symbol: string): ProbeArmState {
  let state: ProbeArmState = 'absent';
  for (const line of text.split('\n')) {
    const m = /^\S+\s+[kr]\s+(\S+)\s*(.*)$/.exec(line.trim());
    if (!m) continue;
    const target = m[1]!.replace(/^[^:]+:/, '');
    if (target !== `${symbol}+0x0` && target !== symbol) continue;
    const flags = m[2] ?? '';
    if (flags.includes('[GONE]')) state = state === 'absent' ? 'gone' : state;
    else if (flags.includes('[DISABLED]')) state = state === 'armed' ? state : 'disabled';
    else state = 'armed';
  }
  return state;
}

/** The kernel lockdown mode from /sys/kernel/security/lockdown (`none [integrity] confidentiality`). */
export function parseLockdown(text: string): 'none' | 'integrity' | 'confidentiality' | null {
  const m = /\[(none|integrity|confidentiality)\]/.exec(text);
  return m ? (m[1] as 'none' | 'integrity' | 'confidentiality') : null;
}

/** A loaded module as /proc/modules lists it. */
export interface LoadedModule {
  name: string;
  size: number;
  /** Load address; 0 when hidden (kptr_restrict, not root). */
  base: bigint;
}

/** Parses /proc/modules (`test_lockup 16384 0 - Live 0xffffffffc0200000`). */
export function parseProcModules(text: string): LoadedModule[] {
  const out: LoadedModule[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    const size = Number(f[1]);
    const addr = f.find((x) => /^0x[0-9a-f]+$/i.test(x));
    if (!Number.isFinite(size)) continue;
    out.push({ name: f[0]!, size, base: addr ? BigInt(addr) : 0n });
  }
  return out;
}

/** One text symbol of a module, for resolving raw addresses later. */
export interface ModuleSymbol {
  address: bigint;
  name: string;
}

/** The symbols of some modules, sorted by address, as a snapshot taken while they were loaded. */
export type ModuleSymbolSnapshot = Map<string, ModuleSymbol[]>;

// Extracts the text symbols of `modules` from /proc/kallsyms (`ffffffffc0200010 t test_unlock\t[test_lockup]`).
export function moduleSymbolsFromKallsyms(
  kallsyms: string,
  modules: ReadonlySet<string>,
): ModuleSymbolSnapshot {
  const out: ModuleSymbolSnapshot = new Map();
  // Only module lines carry "\t[": visited by that mark, so the built-in symbols (most of the
  // file) are never cut into strings.
  for (let tab = kallsyms.indexOf('\t['); tab >= 0; tab = kallsyms.indexOf('\t[', tab + 2)) {
    let end = kallsyms.indexOf('\n', tab);
    if (end < 0) end = kallsyms.length;
    if (kallsyms.charAt(end - 1) !== ']') continue;
    const mod = kallsyms.slice(tab + 2, end - 1);
    if (!modules.has(mod)) continue;
    const line = kallsyms.slice(kallsyms.lastIndexOf('\n', tab) + 1, tab);
    const m = /^([0-9a-f]+) ([tT]) (\S+)$/i.exec(line);
    if (!m) continue;
    const address = BigInt(`0x${m[1]!}`);
    if (address === 0n) continue;
    let list = out.get(mod);
    if (!list) out.set(mod, (list = []));
    list.push({ address, name: m[3]! });
  }
  for (const list of out.values()) list.sort((a, b) => (a.address < b.address ? -1 : 1));
  return out;
}

/**
 * Names a raw address from a snapshot the way ftrace with sym-offset would have
 * (`test_unlock+0x5d/0x250 [test_lockup]`); null when no module of the snapshot holds it.
 * The size of the last symbol of a module runs to the module's end.
 */
export function resolveModuleAddress(
  address: bigint,
  snapshot: ModuleSymbolSnapshot,
  modules: ReadonlyMap<string, LoadedModule>,
): string | null {
  for (const [mod, syms] of snapshot) {
    const info = modules.get(mod);
    if (syms.length === 0) continue;
    const first = syms[0]!.address;
    const end =
      info && info.base !== 0n ? info.base + BigInt(info.size) : syms[syms.length - 1]!.address;
    if (address < first || address >= end) continue;
    let i = syms.length - 1;
    while (i > 0 && syms[i]!.address > address) i--;
    const sym = syms[i]!;
    const next = syms[i + 1]?.address ?? end;
    const off = address - sym.address;
    const size = next - sym.address;
    return `${sym.name}+0x${off.toString(16)}/0x${size.toString(16)} [${mod}]`;
  }
  return null;
}

const RAW_FRAME_RE = /^(\s*=>\s*)0x([0-9a-f]{9,16})\s*$/i;

// Rewrites a ` => 0xffffffffc…` stack line with a snapshot symbol (unchanged when unknown).
export function resolveRawFrameLine(
  line: string,
  snapshot: ModuleSymbolSnapshot,
  modules: ReadonlyMap<string, LoadedModule>,
): string {
  const m = RAW_FRAME_RE.exec(line);
  if (!m || snapshot.size === 0) return line;
  const name = resolveModuleAddress(BigInt(`0x${m[2]!}`), snapshot, modules);
  return name ? `${m[1]!}${name}` : line;
}

/** A trace_pipe marker written by xrunhunt (`tracing_mark_write: <text>`) and its timestamp, s. */
export function parseTraceMarker(line: string, marker: string): number | null {
  if (!line.includes(marker)) return null;
  // With sym-offset on, the event name carries an offset: `tracing_mark_write+0xdd/0x240:`.
  const m = /\s(\d+\.\d+):\s+tracing_mark_write(?:\+0x[0-9a-f]+\/0x[0-9a-f]+)?:/.exec(line);
  return m ? Number(m[1]) : null;
}

/** Events the ring buffer dropped, from trace_pipe's `CPU:1 [LOST 42 EVENTS]` lines. */
export function parseLostEvents(line: string): number {
  const m = /\[LOST (\d+) EVENTS\]/.exec(line);
  return m ? Number(m[1]) : 0;
}

/** Facts that explain why the probe could not be installed. */
export interface KprobeFailureContext {
  euid: number;
  lockdown: 'none' | 'integrity' | 'confidentiality' | null;
  errno: string | undefined;
  file: string;
}

// Turns a failed tracefs write into what happened and what to do (root, lockdown, kernel config).
export function explainKprobeFailure(c: KprobeFailureContext): { message: string; hint: string } {
  if (c.euid !== 0) {
    return {
      message: `cannot write ${c.file}: kprobes need root`,
      hint: 'run xrunhunt as root (sudo)',
    };
  }
  if (c.lockdown === 'confidentiality' || (c.errno === 'EPERM' && c.lockdown === 'integrity')) {
    return {
      message: `cannot write ${c.file}: the kernel is locked down (${c.lockdown}), which blocks tracefs and kprobes`,
      hint: 'lockdown comes with Secure Boot on some distributions; boot without lockdown=confidentiality, or use a kernel with CONFIG_SND_PCM_XRUN_DEBUG (xrun_debug needs no tracefs)',
    };
  }
  if (c.errno === 'ENOENT') {
    return {
      message: `${c.file} does not exist: the kernel has no dynamic kprobe events`,
      hint: 'use a kernel with CONFIG_KPROBES=y and CONFIG_KPROBE_EVENTS=y (most distribution kernels have them), or one with CONFIG_SND_PCM_XRUN_DEBUG',
    };
  }
  if (c.errno === 'EEXIST' || c.errno === 'EBUSY') {
    return {
      message: `cannot write ${c.file} (${c.errno}): a probe named ${KPROBE_GROUP}/${KPROBE_EVENT} is already installed and in use`,
      hint: `another tracer or xrunhunt run uses it; stop it, or remove it with: echo '${kprobeRemoval()}' >> kprobe_events`,
    };
  }
  return {
    message: `cannot write ${c.file}${c.errno ? ` (${c.errno})` : ''}`,
    hint: 'see the kernel log (dmesg) for the kernel’s reason; run "xrunhunt doctor"',
  };
}

/** Hits and misses of one probe, from tracefs `kprobe_profile`. */
export interface ProbeProfile {
  hits: number;
  missed: number;
}

// Reads `kprobe_profile` (`  xrun    1174    0`: event name, hits, missed) for xrunhunt's event.
export function parseKprobeProfile(text: string, event = KPROBE_EVENT): ProbeProfile | null {
  for (const line of text.split('\n')) {
    const m = /^\s*(\S+)\s+(\d+)\s+(\d+)\s*$/.exec(line);
    if (m && (m[1] === event || m[1] === `${KPROBE_GROUP}/${event}`))
      return { hits: Number(m[2]), missed: Number(m[3]) };
  }
  return null;
}
