// Knobs that only a reboot changes (threadirqs, preempt=, nohz_full=): `try` cannot alternate
// them within one run, so it says exactly what to add to the kernel command line and how to
// compare the sessions before and after.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { XrunhuntError } from '../../errors.js';

const BOOT_KNOBS: Record<string, { param: (v: string) => string; why: string }> = {
  threadirqs: {
    param: () => 'threadirqs',
    why: 'interrupt handlers run as threads whose priority can be set (as rtirq does)',
  },
  preempt: {
    param: (v) => `preempt=${v || 'full'}`,
    why: 'a PREEMPT_DYNAMIC kernel can run fully preemptible, cutting long non-preemptible sections',
  },
  nohz_full: {
    param: (v) => `nohz_full=${v || '1'}`,
    why: 'the listed CPUs get no scheduler tick while they run one task',
  },
};

/** The names `try` recognizes but cannot change at run time. */
export const BOOT_ONLY_KNOBS = Object.keys(BOOT_KNOBS);

/** The refusal for a boot-only knob: the exact boot line and the before/after recipe. */
export function bootOnlyError(key: string, value: string): XrunhuntError {
  const k = BOOT_KNOBS[key]!;
  const param = k.param(quoteUntrusted(value, 60));
  return new XrunhuntError(
    'unsupported',
    `${key} needs a reboot (${k.why}); try cannot alternate it within one run`,
    {
      hint: `record a session now ("xrunhunt session --out before"), add ${param} to the kernel command line (GRUB: append it to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run update-grub, reboot), record "xrunhunt session --out after", then "xrunhunt compare before after"`,
    },
  );
}
