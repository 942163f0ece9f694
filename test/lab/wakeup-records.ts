// The kprobe XRUN records of a session's kernel.log (ftrace text from trace_pipe), reduced to
// what the wake-up lab test asks: which task detected the XRUN, in which context (the ftrace
// flags' hardirq/softirq column), and the functions of its stack. A test helper only.

/** One `xrun:` kprobe hit with its `<stack trace>`. */
export interface KprobeXrunRecord {
  comm: string;
  /** The detecting task's pid as ftrace prints it: the thread id. */
  pid: number;
  /** The flags column had `h` or `H` (hard interrupt). */
  hardirq: boolean;
  /** The flags column had `s` (softirq), and no hard interrupt. */
  softirq: boolean;
  /** Function names of the stack, innermost first, offsets and modules cut off. */
  frames: string[];
}

// `   node-213     [000] d.h1.   238.758117: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm]) …`
const HEADER = /^\s*(.+)-(\d+)\s+\[\d+\]\s+(\S{4,5})\s+[\d.]+: xrun: \(__snd_pcm_xrun\+/;
const FRAME = /^ => ([A-Za-z_][\w.]*)\+0x/;

/** Parses every xrun record of a kprobe kernel.log; lines of other kinds are skipped. */
export function kprobeXrunRecords(log: string): KprobeXrunRecord[] {
  const out: KprobeXrunRecord[] = [];
  let current: KprobeXrunRecord | null = null;
  for (const line of log.split('\n')) {
    const h = HEADER.exec(line);
    if (h) {
      const flags = h[3]!;
      const ctx = flags[2] ?? '.';
      current = {
        comm: h[1]!.trim(),
        pid: Number(h[2]),
        hardirq: ctx === 'h' || ctx === 'H',
        softirq: ctx === 's',
        frames: [],
      };
      out.push(current);
      continue;
    }
    const f = FRAME.exec(line);
    if (f && current) current.frames.push(f[1]!);
    else if (!line.includes('<stack trace>') && !line.startsWith(' => ')) current = null;
  }
  return out;
}
