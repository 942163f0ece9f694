// Re-runs the `analyze` extremes of issue 30 against the built CLI (bin/xrunhunt.js), as a user
// would run it, and prints per class how many variants were tried and how many the code did
// not withstand, one line per failure; the peak RSS (VmHWM) of every memory variant is printed
// too. Not a test: a verification run. Inputs are generated in a temporary folder (up to
// ~1.1 GB at a time, deleted as soon as each variant is done).
// Usage: npm run build && node --import tsx bench/attack-issue30-analyze.ts [--list] [--quick]
import { spawn } from 'node:child_process';
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';

const repo = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(repo, 'bin/xrunhunt.js');
const list = process.argv.includes('--list');
const quick = process.argv.includes('--quick');
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-attack30a-'));
const MB = 1024 * 1024;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Peak resident set (VmHWM), bytes. */
  peak: number;
  ms: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `xrunhunt analyze ARGS` to completion, standard input from `stdinFile` (or none),
 * standard output to a file (read back when `keepStdout`), polling /proc/PID/status for VmHWM.
 */
function analyze(
  args: string[],
  opts: { stdinFile?: string; keepStdout?: boolean; timeoutMs?: number } = {},
): Promise<Run> {
  const outFile = join(work, 'stdout');
  const out = openSync(outFile, 'w');
  const inp = opts.stdinFile ? openSync(opts.stdinFile, 'r') : 'ignore';
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, 'analyze', ...args], {
    stdio: [inp, out, 'pipe'],
    env: { ...process.env, CI: 'true' },
  });
  closeSync(out);
  if (typeof inp === 'number') closeSync(inp);
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    if (stderr.length < 1e6) stderr += b.toString();
  });
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // gone
    }
  }, 25);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 600_000);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      const stdout = opts.keepStdout ? readFileSync(outFile, 'utf8') : '';
      rmSync(outFile, { force: true });
      resolve({ code, signal, peak, ms: Date.now() - started, stdout, stderr });
    });
  });
}

const short = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, 200);
const stackTrace = (s: string): boolean => /^\s+at .*(\.js|\.ts):\d+/m.test(s);
const mib = (n: number): string => `${(n / MB).toFixed(0)} MiB`;

interface Tally {
  finding: string;
  tried: number;
  failures: string[];
  passed: string[];
}
const tallies: Tally[] = [];
const measures: string[] = [];
function tally(finding: string): Tally {
  const t: Tally = { finding, tried: 0, failures: [], passed: [] };
  tallies.push(t);
  return t;
}
function record(t: Tally, name: string, problem: string | null): void {
  t.tried++;
  if (problem) t.failures.push(`${name}: ${problem}`);
  else t.passed.push(name);
}

/** Writes `pieces()` to a file through a stream (backpressure: never the whole file in memory). */
async function writeFile(path: string, pieces: () => Generator<string | Buffer>): Promise<void> {
  const ws: Writable = createWriteStream(path);
  for (const p of pieces()) {
    if (!ws.write(p)) await new Promise((r) => ws.once('drain', r));
  }
  await new Promise<void>((resolve, reject) =>
    ws.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
}

// ------------------------------------------------------------ dumps

/** A modern x86 XRUN dump whose interrupted code is `hog` (the offender), printed by CPU `cpu`. */
function dump(cpu: number, hog: string, caller = `${hog}_caller`): string[] {
  return [
    `snd_dummy snd_dummy.${cpu}: XRUN: pcmC${cpu}D0p:0`,
    `CPU: ${cpu} PID: ${100 + cpu} Comm: task${cpu} Not tainted 6.1.0 #1`,
    'Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)',
    'Call Trace:',
    ' <IRQ>',
    ' dump_stack_lvl+0x4c/0x63',
    ' __snd_pcm_xrun.cold+0x5/0xa',
    ' snd_pcm_update_hw_ptr0+0x23a/0x6f0',
    ' snd_pcm_period_elapsed+0x22/0x40',
    ' dummy_hrtimer_callback+0x91/0xd0',
    ' __hrtimer_run_queues+0x112/0x2b0',
    ' hrtimer_interrupt+0x10b/0x230',
    ' __sysvec_apic_timer_interrupt+0x55/0x100',
    ' sysvec_apic_timer_interrupt+0x35/0x90',
    ' </IRQ>',
    ' <TASK>',
    ' asm_sysvec_apic_timer_interrupt+0x16/0x20',
    `RIP: 0010:${hog}+0x15/0x30`,
    'RSP: 0018:ffffb5a3c05b7c58 EFLAGS: 00000246',
    ` ${caller}+0x225/0x410`,
    ' do_syscall_64+0x38/0x90',
    ' </TASK>',
  ];
}

interface JsonReport {
  events: { pcm: string | null; offender: { class: string; function: string | null } }[];
  offenders: { function: string; count: number }[];
  summary: { events: number };
  warnings: string[];
}

// ------------------------------------------------ A1: distinct names, bounded ranking

/** A log of `n` short dumps, each with its own offender name (and module when `modules`). */
function* distinctNames(n: number, modules: boolean): Generator<string> {
  let block = '';
  for (let i = 0; i < n; i++) {
    const name = `fn_${i.toString(36)}`;
    block += `[${(10 + i / 1000).toFixed(6)}] snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0
 <IRQ>
 snd_pcm_period_elapsed+0x22/0x40
 hrtimer_interrupt+0x10b/0x230
 </IRQ>
RIP: 0010:${modules ? `hog+0x15/0x30 [mod_${i.toString(36)}]` : `${name}+0x15/0x30`}
`;
    if (block.length > 1 << 20) {
      yield block;
      block = '';
    }
  }
  yield block;
}

async function attackDistinctNames(): Promise<void> {
  const t = tally('30.A1 analyze ranking memory vs distinct names');
  const sizes = quick
    ? [10_000, 100_000, 400_000]
    : [10_000, 100_000, 300_000, 1_000_000, 2_000_000];
  const variants: [string, boolean, string[]][] = [
    ['distinct functions, text report', false, []],
    ['distinct functions, --json', false, ['--json']],
    ['distinct modules of one function, text report', true, []],
  ];
  for (const [label, modules, args] of variants) {
    const peaks: [number, number][] = [];
    for (const n of sizes) {
      if (modules && n !== sizes[0] && n !== sizes[sizes.length - 1]) continue;
      if (args.length > 0 && n !== sizes[0] && n !== sizes[sizes.length - 1]) continue;
      const file = join(work, `names-${n}.log`);
      await writeFile(file, () => distinctNames(n, modules));
      const r = await analyze([file, ...args]);
      rmSync(file, { force: true });
      measures.push(
        `  ${label}: ${String(n).padStart(9)} names  peak RSS ${mib(r.peak).padStart(8)}  ${(r.ms / 1000).toFixed(1)} s  exit ${r.code}`,
      );
      const name = `${label}, ${n} names`;
      if (r.signal) record(t, name, `killed (${r.signal}) after ${r.ms} ms`);
      else if (r.code !== 2) record(t, name, `exit ${r.code}: ${short(r.stderr)}`);
      else if (stackTrace(r.stderr)) record(t, name, `stack trace: ${short(r.stderr)}`);
      else if (n > 20_000 && !/distinct offenders/.test(r.stderr))
        record(t, name, 'no warning that the ranking was bounded');
      else record(t, name, null);
      peaks.push([n, r.peak]);
    }
    // Plateau: from the smallest to the largest input the peak may grow by a constant, not in
    // proportion to the names (a linear tally grew ~1.8 KB per name: 1.9 GB at 1 000 000).
    const [n0, p0] = peaks[0]!;
    const [n1, p1] = peaks[peaks.length - 1]!;
    record(
      t,
      `${label}: peak RSS plateaus (${n0} → ${n1} names: ${mib(p0)} → ${mib(p1)})`,
      p1 - p0 > 200 * MB
        ? `grew ${mib(p1 - p0)} (${((p1 - p0) / (n1 - n0)).toFixed(0)} B per name)`
        : null,
    );
  }
}

// ------------------------------------------------------------ A2: a 1 GB line

const GB = quick ? 256 * MB : 1024 * MB;

/** `bytes` bytes of one line's text (no line end), in 4 MiB pieces. */
function* longLine(bytes: number, lead = ''): Generator<string | Buffer> {
  const piece = Buffer.alloc(4 * MB, 'x_LONG-line ');
  if (lead) yield lead;
  for (let left = bytes - lead.length; left > 0; left -= piece.length)
    yield left >= piece.length ? piece : piece.subarray(0, left);
}

const normalDumps = (from: number, count: number): string =>
  Array.from({ length: count }, (_, i) =>
    dump(0, `hog_${from + i}`)
      .map((l) => `[  ${100 + from + i}.000000] ${l}`)
      .join('\n'),
  ).join('\n') + '\n';

async function attackLongLine(): Promise<void> {
  const t = tally('30.A2 analyze a 1 GB line');
  const bound = 400 * MB;
  // hogs: events that must name their own offender (the long header's event has no stack; the
  // dump cut by a 1 GB line may lose its own).
  type Want = { events: number; hogs?: number; stdin?: boolean; expect?: RegExp };
  const variants: [string, () => Generator<string | Buffer>, Want][] = [
    ['one 1 GB line, no line end', () => longLine(GB), { events: 0, expect: /truncated/ }],
    [
      'one 1 GB line, no line end, on standard input',
      () => longLine(GB),
      { events: 0, stdin: true, expect: /stopped reading|truncated/ },
    ],
    [
      '1 GB line between 5 and 5 normal dumps',
      function* () {
        yield normalDumps(0, 5);
        yield* longLine(GB);
        yield '\n';
        yield normalDumps(5, 5);
      },
      { events: 10, expect: /truncated/ },
    ],
    [
      '1 GB line that is an XRUN header followed by junk, between dumps',
      function* () {
        yield normalDumps(0, 3);
        yield* longLine(GB, '[  200.000000] snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0 ');
        yield '\n';
        yield normalDumps(3, 3);
      },
      { events: 7, hogs: 6, expect: /truncated/ },
    ],
    [
      '1 GB line inside a stack dump, dumps around it',
      function* () {
        yield normalDumps(0, 3);
        const d = dump(0, 'hog_mid').map((l) => `[  300.000000] ${l}`);
        yield d.slice(0, 10).join('\n') + '\n';
        yield* longLine(GB, '[  300.000001]  ');
        yield '\n' + d.slice(10).join('\n') + '\n';
        yield normalDumps(3, 3);
      },
      { events: 7, hogs: 6, expect: /truncated/ },
    ],
    [
      '1 GB line opening like JSON ({), dumps after it',
      function* () {
        yield* longLine(GB, '{"formatVersion": "');
        yield '\n';
        yield normalDumps(0, 4);
      },
      { events: 4, expect: /truncated/ },
    ],
    [
      '1 GB line ended by a lone CR, dumps around it',
      function* () {
        yield normalDumps(0, 2);
        yield* longLine(GB);
        yield '\r';
        yield normalDumps(2, 2);
      },
      { events: 4, expect: /truncated/ },
    ],
  ];
  for (const [name, make, want] of variants) {
    const file = join(work, 'long.log');
    await writeFile(file, make);
    const r = want.stdin
      ? await analyze(['--json', '-'], { stdinFile: file, keepStdout: true })
      : await analyze(['--json', file], { keepStdout: true });
    rmSync(file, { force: true });
    measures.push(
      `  ${name}: peak RSS ${mib(r.peak)}  ${(r.ms / 1000).toFixed(1)} s  exit ${r.code}`,
    );
    let problem: string | null = null;
    let j: JsonReport | undefined;
    try {
      j = JSON.parse(r.stdout) as JsonReport;
    } catch {
      problem = `no JSON report (exit ${r.code}${r.signal ? `, ${r.signal}` : ''}): ${short(r.stderr)}`;
    }
    if (!problem && j) {
      const hogs = j.events.filter((e) => e.offender.class === 'kernel').length;
      if (r.signal) problem = `killed (${r.signal})`;
      else if (stackTrace(r.stderr)) problem = `stack trace: ${short(r.stderr)}`;
      else if (r.peak > bound) problem = `peak RSS ${mib(r.peak)} (bound ${mib(bound)})`;
      else if (j.summary.events !== want.events)
        problem = `${j.summary.events} events, expected ${want.events}`;
      else if (hogs < (want.hogs ?? want.events))
        problem = `only ${hogs} of ${want.events} events attributed to their offender`;
      else if (want.expect && !want.expect.test(j.warnings.join('\n')))
        problem = `no clear warning: ${JSON.stringify(j.warnings)}`;
    }
    record(t, name, problem);
  }
}

// ------------------------------------------------------ A3: dumps from 64 CPUs interleaved

type Fmt = (cpu: number, line: string, time: string, seq: number) => string;
const CALLER_FORMATS: [string, Fmt][] = [
  ['printk caller C<cpu> ([ts][    C12])', (c, l, t) => `[${t}][    C${c}] ${l}`],
  ['printk caller T<pid> ([ts][  T123])', (c, l, t) => `[${t}][  T${100 + c}] ${l}`],
  ['util-linux dmesg ([ts] [    C12])', (c, l, t) => `[${t}] [    C${c}] ${l}`],
  [
    '/dev/kmsg records with caller=C12',
    (c, l, t, s) => `4,${s},${Math.round(Number(t) * 1e6)},-,caller=C${c};${l}`,
  ],
  [
    '/dev/kmsg records with caller=T123',
    (c, l, t, s) => `4,${s},${Math.round(Number(t) * 1e6)},-,caller=T${100 + c};${l}`,
  ],
  ['caller id without timestamp ([    C12])', (c, l) => `[    C${c}] ${l}`],
  [
    'syslog kern.log with caller ids',
    (c, l, t) => `Dec  7 20:00:00 host kernel: [${t}][    C${c}] ${l}`,
  ],
  ['dmesg -T with caller ids', (c, l) => `[Thu Dec  7 20:00:00 2026] [    C${c}] ${l}`],
  ['<level> and caller ids (/proc/kmsg)', (c, l, t) => `<4>[${t}][    C${c}] ${l}`],
  ['MediaTek (cpu)[pid:comm]', (c, l, t) => `[${t}](${c})[${100 + c}:task${c}]${l}`],
];
const KEYLESS_FORMATS: [string, Fmt][] = [
  ['plain dmesg (no caller ids)', (_c, l, t) => `[${t}] ${l}`],
  ['journalctl -k (no caller ids)', (_c, l) => `Dec  7 20:00:00 host kernel: ${l}`],
  ['/dev/kmsg without caller=', (_c, l, t, s) => `4,${s},${Math.round(Number(t) * 1e6)},-;${l}`],
  ['no prefix at all', (_c, l) => l],
];

/** A seeded PRNG (mulberry32): the same interleavings on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type Pattern = (dumps: string[][]) => [number, string][];
const PATTERNS: [string, number, Pattern][] = [
  [
    'round robin, line by line',
    64,
    (d) => {
      const out: [number, string][] = [];
      for (let i = 0; i < d[0]!.length; i++) d.forEach((x, c) => out.push([c, x[i]!]));
      return out;
    },
  ],
  ...[1, 2, 3].map((seed): [string, number, Pattern] => [
    `random interleaving, seed ${seed}`,
    64,
    (d) => {
      const r = rng(seed);
      const pos = d.map(() => 0);
      const out: [number, string][] = [];
      for (;;) {
        const live = pos.map((p, c) => (p < d[c]!.length ? c : -1)).filter((c) => c >= 0);
        if (live.length === 0) return out;
        const c = live[Math.floor(r() * live.length)]!;
        out.push([c, d[c]![pos[c]!++]!]);
      }
    },
  ]),
  [
    'bursts of 3 lines',
    64,
    (d) => {
      const out: [number, string][] = [];
      for (let i = 0; i < d[0]!.length; i += 3)
        d.forEach((x, c) => x.slice(i, i + 3).forEach((l) => out.push([c, l])));
      return out;
    },
  ],
  [
    'staggered: each CPU starts 2 lines after the one before',
    64,
    (d) => {
      const out: [number, string][] = [];
      const len = d[0]!.length;
      for (let step = 0; step < len + 2 * d.length; step++)
        d.forEach((x, c) => {
          const i = step - 2 * c;
          if (i >= 0 && i < len) out.push([c, x[i]!]);
        });
      return out;
    },
  ],
  [
    'two CPUs, random interleaving',
    2,
    (d) => {
      const r = rng(7);
      const pos = d.map(() => 0);
      const out: [number, string][] = [];
      for (;;) {
        const live = pos.map((p, c) => (p < d[c]!.length ? c : -1)).filter((c) => c >= 0);
        if (live.length === 0) return out;
        const c = live[Math.floor(r() * live.length)]!;
        out.push([c, d[c]![pos[c]!++]!]);
      }
    },
  ],
];

async function attackInterleaved(): Promise<void> {
  const t = tally('30.A3 analyze dumps interleaved from 64 CPUs');
  const file = join(work, 'interleaved.log');
  for (const [pname, cpus, pattern] of PATTERNS) {
    const dumps = Array.from({ length: cpus }, (_, c) => dump(c, `cpu${c}_hog`));
    const mixed = pattern(dumps);
    for (const [fname, fmt] of [...CALLER_FORMATS, ...KEYLESS_FORMATS]) {
      const keyless = KEYLESS_FORMATS.some(([n]) => n === fname);
      const text =
        mixed.map(([c, l], i) => fmt(c, l, (100 + i / 1e6).toFixed(6), i + 1)).join('\n') + '\n';
      await writeFile(file, function* () {
        yield text;
      });
      const r = await analyze(['--json', file], { keepStdout: true, timeoutMs: 60_000 });
      const name = `${fname}, ${pname}`;
      let j: JsonReport;
      try {
        j = JSON.parse(r.stdout) as JsonReport;
      } catch {
        record(t, name, `no JSON report (exit ${r.code}): ${short(r.stderr)}`);
        continue;
      }
      let right = 0;
      const wrong: string[] = [];
      for (const e of j.events) {
        const cpu = /pcmC(\d+)/.exec(e.pcm ?? '')?.[1];
        if (e.offender.function === `cpu${cpu}_hog`) right++;
        else if (e.offender.class === 'kernel') wrong.push(`${e.pcm} → ${e.offender.function}`);
      }
      const warned = j.warnings.some((w) => /interleaved/.test(w));
      let problem: string | null = null;
      if (stackTrace(r.stderr)) problem = `stack trace: ${short(r.stderr)}`;
      else if (j.summary.events !== cpus) problem = `${j.summary.events} events, expected ${cpus}`;
      else if (wrong.length > 0)
        problem = `${wrong.length} event(s) ranked under another CPU's offender (${wrong.slice(0, 3).join(', ')})${warned ? ' (warned)' : ''}`;
      else if (!keyless && right !== cpus) problem = `only ${right} of ${cpus} attributed`;
      else if (!keyless && warned)
        problem = 'warned of interleaving although caller ids tell the dumps apart';
      else if (keyless && right !== cpus && !warned)
        problem = `${cpus - right} event(s) lost their offender without a warning`;
      record(t, name, problem);
    }
  }
  // The same 64 dumps one after the other (not interleaved): all attributed, no warning.
  for (const [fname, fmt] of KEYLESS_FORMATS) {
    const seq = Array.from({ length: 64 }, (_, c) => dump(c, `cpu${c}_hog`)).flat();
    await writeFile(file, function* () {
      yield seq.map((l, i) => fmt(0, l, (100 + i / 1e6).toFixed(6), i + 1)).join('\n') + '\n';
    });
    const r = await analyze(['--json', file], { keepStdout: true });
    const j = JSON.parse(r.stdout) as JsonReport;
    const right = j.events.filter(
      (e) => e.offender.function === `cpu${/pcmC(\d+)/.exec(e.pcm ?? '')?.[1]}_hog`,
    ).length;
    record(
      t,
      `${fname}, not interleaved (control)`,
      right !== 64
        ? `only ${right} of 64 attributed`
        : j.warnings.some((w) => /interleaved/.test(w))
          ? 'warned of interleaving in a sequential log'
          : null,
    );
  }
  rmSync(file, { force: true });
}

async function main(): Promise<void> {
  if (!existsSync(BIN)) throw new Error('run "npm run build" first');
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice(7)
    .split(',');
  try {
    if (!only || only.includes('A3')) await attackInterleaved();
    if (!only || only.includes('A2')) await attackLongLine();
    if (!only || only.includes('A1')) await attackDistinctNames();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (measures.length > 0) console.log(`measured:\n${measures.join('\n')}\n`);
  const w = Math.max(...tallies.map((t) => t.finding.length));
  console.log(`${'class'.padEnd(w)}  tried  failures`);
  for (const t of tallies) {
    console.log(`${t.finding.padEnd(w)}  ${String(t.tried).padStart(5)}  ${t.failures.length}`);
    for (const f of t.failures) console.log(`  FAIL ${f}`);
    if (list) for (const p of t.passed) console.log(`  held ${p}`);
  }
  process.exitCode = tallies.some((t) => t.failures.length > 0) ? 1 : 0;
}

await main();
