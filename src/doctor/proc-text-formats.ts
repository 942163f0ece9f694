// Pure parsers for the non-sound /proc and /sys texts doctor reads: capabilities, rlimits,
// /proc/interrupts, the debugfs preemption switch.

/** CAP_SYS_NICE is capability bit 23 (include/uapi/linux/capability.h). */
const CAP_SYS_NICE = 23n;

/** Reads the CapEff hex mask of /proc/self/status. */
export function parseCapEff(status: string): string | undefined {
  return /^CapEff:\s*([0-9a-fA-F]+)\s*$/m.exec(status)?.[1];
}

/** Reads the effective uid (second field of `Uid:`) of /proc/self/status. */
export function parseEffectiveUid(status: string): number | undefined {
  const m = /^Uid:\s*(\d+)\s+(\d+)/m.exec(status);
  return m ? Number(m[2]) : undefined;
}

/** Whether a CapEff mask includes CAP_SYS_NICE (needed for SCHED_FIFO without root or rtprio). */
export function hasCapSysNice(capEff: string | undefined): boolean {
  if (capEff === undefined || !/^[0-9a-f]+$/i.test(capEff)) return false;
  return ((BigInt(`0x${capEff}`) >> CAP_SYS_NICE) & 1n) === 1n;
}

/** Reads `Max realtime priority  <soft>  <hard>` from /proc/self/limits. */
export function parseRtprioLimit(limits: string): { soft: string; hard: string } | undefined {
  const m = /^Max realtime priority\s+(\S+)\s+(\S+)/m.exec(limits);
  return m ? { soft: m[1]!, hard: m[2]! } : undefined;
}

/** The selected mode of /sys/kernel/debug/sched/preempt (`none voluntary (full)` → `full`). */
export function parseDebugfsPreempt(text: string): string | undefined {
  return /\((\w+)\)/.exec(text)?.[1];
}

/** One numbered line of /proc/interrupts. */
export interface InterruptLine {
  irq: number;
  total: number;
  chip: string;
  /** Handler names (`snd_hda_intel:card0`); more than one = a shared line. */
  actions: string[];
}

/** Parses /proc/interrupts (kernel/irq/proc.c show_interrupts); non-numeric rows (NMI, LOC) skipped. */
export function parseInterrupts(text: string): InterruptLine[] {
  const lines = text.split('\n');
  const cpus = (lines[0] ?? '')
    .trim()
    .split(/\s+/)
    .filter((c) => /^CPU\d+$/.test(c)).length;
  const out: InterruptLine[] = [];
  for (const line of lines.slice(1)) {
    const m = /^\s*(\d+):\s+(.*)$/.exec(line);
    if (!m) continue;
    const fields = m[2]!.trim().split(/\s+/);
    const counts = fields.slice(0, cpus).map(Number);
    if (counts.length !== cpus || counts.some((c) => !Number.isFinite(c))) continue;
    // after the counts: chip, hwirq, trigger type, then two spaces and the handler names
    const rest = m[2]!.trim().replace(new RegExp(`^(\\d+\\s+){${cpus}}`), '');
    const parts = rest.split(/\s{2,}/);
    // a line without handlers ends with its trigger type (`40-edge`, `fasteoi`)
    const last = parts[parts.length - 1]!;
    const noAction = parts.length < 2 || /^(\d+-)?(edge|level|fasteoi|eoi|simple)$/i.test(last);
    const actionText = noAction ? '' : last;
    out.push({
      irq: Number(m[1]),
      total: counts.reduce((a, b) => a + b, 0),
      chip: (noAction ? parts : parts.slice(0, -1)).join(' '),
      actions: actionText === '' ? [] : actionText.split(/,\s*/).filter((a) => a !== ''),
    });
  }
  return out;
}
