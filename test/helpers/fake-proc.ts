// Builds fake /proc (and /sys, /boot, /dev) trees in a temporary folder, laid out like the
// kernel's, so discovery, xrun_debug control and doctor run against real files with
// `--proc-root` / `--sys-root`. Formats follow sound/core/{init,pcm,pcm_proc}.c on 6.1.
// These are plain files, not procfs: they show the layout and text, not kernel semantics
// (a write does not trigger an xrun).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface FakeSubstream {
  /** Raw subN/status text; default `closed\n`. */
  status?: string;
  /** Whether subN/xrun_injection exists; default: when the PCM has xrun_debug. */
  injection?: boolean;
}

export interface FakePcm {
  device: number;
  stream: 'p' | 'c';
  name?: string;
  /** xrun_debug content; a number becomes `N\n`; undefined = the kernel lacks the file. */
  xrunDebug?: number | string;
  /** Raw info text overriding the generated one (garbage tests). */
  info?: string;
  subs?: FakeSubstream[];
}

export interface FakeCard {
  index: number;
  id: string;
  driver: string;
  shortName?: string;
  longName?: string;
  pcms: FakePcm[];
}

export interface FakeSystemSpec {
  /** Whether <proc>/asound exists; default true. */
  asound?: boolean;
  cards?: FakeCard[];
  /** Raw /proc/asound/cards text overriding the generated one. */
  cardsText?: string;
  /** Extra files relative to the proc root (`sys/kernel/osrelease`, `self/status`, ...). */
  proc?: Record<string, string>;
  /** Kernel config text stored gzipped as <proc>/config.gz. */
  configGz?: string;
  sys?: Record<string, string>;
  boot?: Record<string, string>;
  dev?: Record<string, string>;
}

export interface FakeSystem {
  base: string;
  procRoot: string;
  sysRoot: string;
  bootRoot: string;
  devRoot: string;
  /** Absolute path of a file under the proc root. */
  proc(rel: string): string;
  readProc(rel: string): string;
  writeProc(rel: string, text: string): void;
  cleanup(): void;
}

/** A snd-dummy card as the lab kernel shows it (hrtimer backend, no IRQ line); mask null = no xrun_debug. */
export function dummyCard(
  overrides: Partial<FakeCard> = {},
  mask: number | string | null = 0,
): FakeCard {
  const xrunDebug = mask ?? undefined;
  return {
    index: 0,
    id: 'Dummy',
    driver: 'Dummy',
    shortName: 'Dummy',
    longName: 'Dummy 1',
    pcms: [
      { device: 0, stream: 'p', name: 'Dummy PCM', xrunDebug, subs: [{}, {}] },
      { device: 0, stream: 'c', name: 'Dummy PCM', xrunDebug, subs: [{}] },
    ],
    ...overrides,
  };
}

/** An HDA card with an interrupt line, as on a typical laptop. */
export function hdaCard(
  overrides: Partial<FakeCard> = {},
  mask: number | string | null = 0,
): FakeCard {
  const xrunDebug = mask ?? undefined;
  return {
    index: 1,
    id: 'PCH',
    driver: 'HDA-Intel',
    shortName: 'HDA Intel PCH',
    longName: 'HDA Intel PCH at 0xf7f10000 irq 33',
    pcms: [
      { device: 0, stream: 'p', name: 'ALC892 Analog', xrunDebug, subs: [{}] },
      { device: 0, stream: 'c', name: 'ALC892 Analog', xrunDebug, subs: [{}] },
      { device: 3, stream: 'p', name: 'HDMI 0', xrunDebug, subs: [{}] },
    ],
    ...overrides,
  };
}

/** /proc/asound/cards text for these cards (init.c card_info_read format). */
export function cardsText(cards: FakeCard[]): string {
  if (cards.length === 0) return '--- no soundcards ---\n';
  return cards
    .map(
      (c) =>
        `${String(c.index).padStart(2)} [${c.id.padEnd(15)}]: ${c.driver} - ${c.shortName ?? c.id}\n` +
        `                      ${c.longName ?? c.shortName ?? c.id}\n`,
    )
    .join('');
}

function pcmInfoText(card: FakeCard, pcm: FakePcm): string {
  const name = pcm.name ?? `${card.id} PCM`;
  return [
    `card: ${card.index}`,
    `device: ${pcm.device}`,
    'subdevice: 0',
    `stream: ${pcm.stream === 'p' ? 'PLAYBACK' : 'CAPTURE'}`,
    `id: ${name}`,
    `name: ${name}`,
    'subname: subdevice #0',
    'class: 0',
    'subclass: 0',
    `subdevices_count: ${pcm.subs?.length ?? 1}`,
    `subdevices_avail: ${pcm.subs?.length ?? 1}`,
    '',
  ].join('\n');
}

function put(root: string, rel: string, text: string | Buffer): void {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

/** Creates the fake tree; call cleanup() (e.g. in `after`). */
export function createFakeSystem(spec: FakeSystemSpec = {}): FakeSystem {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-fake-'));
  const procRoot = join(base, 'proc');
  const sysRoot = join(base, 'sys');
  const bootRoot = join(base, 'boot');
  const devRoot = join(base, 'dev');
  for (const d of [procRoot, sysRoot, bootRoot, devRoot]) mkdirSync(d, { recursive: true });
  const cards = spec.cards ?? [];
  if (spec.asound ?? true) {
    const asound = join(procRoot, 'asound');
    mkdirSync(asound, { recursive: true });
    put(asound, 'cards', spec.cardsText ?? cardsText(cards));
    put(asound, 'version', 'Advanced Linux Sound Architecture Driver Version k6.1.192.\n');
    for (const card of cards) {
      const cardDir = `card${card.index}`;
      put(asound, `${cardDir}/id`, `${card.id}\n`);
      try {
        symlinkSync(cardDir, join(asound, card.id));
      } catch {
        // an id that collides with a file name: the kernel would skip it too
      }
      for (const pcm of card.pcms) {
        const pdir = `${cardDir}/pcm${pcm.device}${pcm.stream}`;
        put(asound, `${pdir}/info`, pcm.info ?? pcmInfoText(card, pcm));
        if (pcm.xrunDebug !== undefined)
          put(
            asound,
            `${pdir}/xrun_debug`,
            typeof pcm.xrunDebug === 'number' ? `${pcm.xrunDebug}\n` : pcm.xrunDebug,
          );
        (pcm.subs ?? [{}]).forEach((sub, i) => {
          put(asound, `${pdir}/sub${i}/status`, sub.status ?? 'closed\n');
          put(asound, `${pdir}/sub${i}/hw_params`, 'closed\n');
          if (sub.injection ?? pcm.xrunDebug !== undefined)
            put(asound, `${pdir}/sub${i}/xrun_injection`, '');
        });
      }
    }
  }
  for (const [rel, text] of Object.entries(spec.proc ?? {})) put(procRoot, rel, text);
  if (spec.configGz !== undefined) put(procRoot, 'config.gz', gzipSync(spec.configGz));
  for (const [rel, text] of Object.entries(spec.sys ?? {})) put(sysRoot, rel, text);
  for (const [rel, text] of Object.entries(spec.boot ?? {})) put(bootRoot, rel, text);
  for (const [rel, text] of Object.entries(spec.dev ?? {})) put(devRoot, rel, text);
  return {
    base,
    procRoot,
    sysRoot,
    bootRoot,
    devRoot,
    proc: (rel) => join(procRoot, rel),
    readProc: (rel) => readFileSync(join(procRoot, rel), 'utf8'),
    writeProc: (rel, text) => put(procRoot, rel, text),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** A kernel config fragment with the xrun_debug options on (lab kernel) or off (Debian 12). */
export function kernelConfigText(options: {
  xrunDebug: boolean;
  hz?: number;
  extra?: string[];
}): string {
  return [
    '# Automatically generated file; DO NOT EDIT.',
    'CONFIG_SOUND=y',
    'CONFIG_SND=y',
    'CONFIG_SND_PCM=y',
    'CONFIG_SND_PROC_FS=y',
    'CONFIG_SND_VERBOSE_PROCFS=y',
    options.xrunDebug ? 'CONFIG_SND_DEBUG=y' : '# CONFIG_SND_DEBUG is not set',
    options.xrunDebug ? 'CONFIG_SND_PCM_XRUN_DEBUG=y' : '',
    `CONFIG_HZ_${options.hz ?? 250}=y`,
    `CONFIG_HZ=${options.hz ?? 250}`,
    'CONFIG_KPROBES=y',
    'CONFIG_KPROBE_EVENTS=y',
    ...(options.extra ?? []),
    '',
  ].join('\n');
}
