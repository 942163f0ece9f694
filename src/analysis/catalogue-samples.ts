// Test support: one constructed line per catalogue entry (its format filled with plausible
// values), the printk-helper prefixes of each era and the capture forms a log reaches a user
// in. Shared by the catalogue tests and the wrapping property tests; never used at run time.
import type { CatalogueEntry } from './message-catalogue.js';

/** Sample prefixes per catalogue prefix id, as each helper prints them. */
export const PREFIX_SAMPLES: Record<string, string[]> = {
  'alsa-verbose-colon': [
    'ALSA sound/core/pcm_lib.c:169: ',
    'ALSA /usr/src/alsa-cvs-1.0.5/alsa-driver/alsa-kernel/core/pcm_lib.c:169: ',
  ],
  'alsa-verbose': ['ALSA pcm_lib.c:1841 '],
  dev: ['snd_hda_intel 0000:00:1b.0: ', 'snd_firewire_motu fw1.0: '],
  'dev-null': ['(NULL device *): '],
  dyndbg: ['snd_pcm:snd_pcm_update_hw_ptr0: snd_hda_intel 0000:00:1b.0: '],
};

/** How a kernel line reaches a user: dmesg, -T, syslog/journal, monotonic journal, kmsg, caller ids, mail. */
export const CAPTURE_FORMS: Record<string, (body: string) => string> = {
  plain: (b) => b,
  dmesg: (b) => `[  133.738588] ${b}`,
  'dmesg-T': (b) => `[Thu Oct  7 12:44:01 2021] ${b}`,
  syslog: (b) => `Aug 10 13:13:05 mango kernel: ${b}`,
  'journal-monotonic': (b) => `[ 4899.494438] kernel: ${b}`,
  kmsg: (b) => `4,311,6790393,-;${b}`,
  'caller-id': (b) => `[  684.958838][ T2486] ${b}`,
  'mail-quoted': (b) => `> > [  133.738588] ${b}`,
};

function value(entry: CatalogueEntry, field: string, conv: string, variant: boolean): string {
  const type = entry.strings[field];
  switch (type) {
    case 'pcm-name':
      return variant ? 'pcmC1D2c:3' : 'pcmC0D0p:0';
    case 'pcm-name-or-empty':
      return variant ? '' : 'pcmC0D0p:0';
    case 'qp-tag':
      return variant ? '[P]' : '[Q] ';
    case 'q-tag':
      return variant ? '' : '[Q] ';
    case 'qp-char':
      return variant ? 'P' : 'Q';
    case 'direction':
      return variant ? 'c' : 'p';
    case 'source-path':
      return 'sound/core/pcm_lib.c';
    case 'word':
      if (field === 'function')
        return entry.id.startsWith('xrun') ? 'xrun' : 'snd_pcm_update_hw_ptr0';
      if (field === 'what') return variant ? 'hwptr' : 'period';
      if (field === 'direction') return variant ? 'capture' : 'playback';
      if (field === 'operation') return variant ? 'read' : 'write';
      return 'word';
    case undefined:
      break;
  }
  if (field === 'card' || field === 'device') return variant ? '1' : '0';
  if (field === 'stream') return variant ? '1' : '0';
  if (conv === 'x') return '1f40';
  if (conv === 'c') return 'p';
  return variant ? '4096' : '65';
}

/** The entry's format filled with values (two variants: name/tag present, and the other form). */
export function sampleMessage(entry: CatalogueEntry, variant: boolean): string {
  let i = 0;
  return entry.format.replace(/%(l{0,2})([diuxcs%])/g, (_m, _l: string, conv: string) => {
    if (conv === '%') return '%';
    const field = entry.fields[i++]!;
    return value(entry, field, conv, variant);
  });
}

/** The pcm token an event from sampleMessage() must report. */
export function expectedPcm(entry: CatalogueEntry, variant: boolean): string | null {
  if (entry.id === 'xrun-card-device') return variant ? 'pcmC1D1c' : 'pcmC0D0p';
  const f = entry.fields.find((x) => entry.strings[x]?.startsWith('pcm-name'));
  if (f === undefined) return null;
  const v = value(entry, f, 's', variant);
  return v.length > 0 ? v : null;
}
