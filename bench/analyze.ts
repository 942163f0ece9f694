// Benchmark (not a test): analyze's throughput on two large kernel logs next to
// `grep -c XRUN` on the same file in the same run, plus analyze's peak memory:
//  - sparse: a busy machine's log, ordinary messages and one XRUN dump every 5 000 lines;
//  - dense: a long xrun_debug session, nothing but dumps (the project's own 6.1 lab
//    captures from test/fixtures/kernel-logs, repeated).
// Goals (ratios of MB/s in one run): sparse ≥ 0.35 × grep, dense ≥ 0.1 × grep; peak RSS
// < 200 MB on both with every event's frames kept (the JSON report is written to /dev/null).
// Usage: npm run bench:analyze [-- --size-mb 200] [--case sparse|dense] [--keep] [--cli auto|dist|tsx]
// (auto: the built program when dist/ is current, as users run it; see built-or-source.ts)
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseBuild } from './built-or-source.js';

const args = process.argv.slice(2);

const sizeMb = Number(args[args.indexOf('--size-mb') + 1] ?? 200) || 200;
const keep = args.includes('--keep');
const onlyCase = args.includes('--case') ? args[args.indexOf('--case') + 1] : undefined;
const cliArg = args.includes('--cli') ? args[args.indexOf('--cli') + 1] : 'auto';
const build = chooseBuild(
  fileURLToPath(new URL('..', import.meta.url)),
  cliArg === 'dist' || cliArg === 'tsx' ? cliArg : 'auto',
);
process.stderr.write(
  build.useDist
    ? 'measuring the built program (dist/, as bin/xrunhunt.js runs it)\n'
    : `measuring the sources through tsx${build.stale ? ' (dist/ is missing or older than src/: npm run build)' : ''}\n`,
);

// Ordinary messages of a busy desktop/server (most lines of a real log).
const ORDINARY = [
  'EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.',
  'usb 1-3: new high-speed USB device number 5 using xhci_hcd',
  'audit: type=1400 audit(1712345678.123:456): apparmor="DENIED" operation="open" profile="snap.firefox" name="/proc/1234/stat"',
  'wlp2s0: associated',
  'IPv6: ADDRCONF(NETDEV_CHANGE): wlp2s0: link becomes ready',
  'snd_hda_intel 0000:00:1f.3: bound 0000:00:02.0 (ops i915_audio_component_bind_ops [i915])',
  'nvme nvme0: 8/0/0 default/read/poll queues',
  'perf: interrupt took too long (2504 > 2500), lowering kernel.perf_event_max_sample_rate to 79750',
  'Bluetooth: hci0: Waiting for firmware download to complete',
  '[UFW BLOCK] IN=wlp2s0 OUT= MAC=01:00:5e:00:00:01 SRC=192.168.1.1 DST=224.0.0.1 LEN=36 TOS=0x00 PREC=0xC0 TTL=1 ID=0 DF PROTO=2',
  'r8169 0000:03:00.0 enp3s0: Link is Up - 1Gbps/Full - flow control rx/tx',
  'input: Logitech USB Receiver as /devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/0003:046D:C52B.0001/input/input5',
];
const DUMP = `snd_hda_intel 0000:00:1f.3: XRUN: pcmC0D0p:0
CPU: 2 PID: 4711 Comm: dd Tainted: G           OE     6.1.0-18-amd64 #1  Debian 6.1.76-1
Hardware name: LENOVO 20XW0026GE/20XW0026GE, BIOS N32ET86W (1.62 ) 02/21/2024
Call Trace:
 <IRQ>
 dump_stack_lvl+0x44/0x5c
 __snd_pcm_xrun.cold+0x5/0xa [snd_pcm]
 snd_pcm_update_state+0x103/0x120 [snd_pcm]
 snd_pcm_update_hw_ptr0+0x23a/0x6f0 [snd_pcm]
 snd_pcm_period_elapsed_under_stream_lock+0x72/0xc0 [snd_pcm]
 snd_pcm_period_elapsed+0x22/0x40 [snd_pcm]
 azx_interrupt+0x83/0x190 [snd_hda_codec]
 __handle_irq_event_percpu+0x46/0x190
 handle_irq_event+0x34/0x70
 handle_edge_irq+0x9f/0x240
 __common_interrupt+0x3f/0xa0
 common_interrupt+0x7b/0xa0
 </IRQ>
 <TASK>
 asm_common_interrupt+0x22/0x40
RIP: 0010:_raw_spin_unlock_irq+0x15/0x30
Code: 5d c3 cc cc cc cc 0f 1f 44 00 00 c6 07 00 0f 1f 40 00 fb 65 ff 0d 8d 2c 4e 7d <74> 05 c3 cc cc cc cc
RSP: 0018:ffffb5a3c05b7c58 EFLAGS: 00000246
RAX: 0000000000000000 RBX: ffff9e6c42a5f800 RCX: 0000000000000000
 __filemap_add_folio+0x225/0x410
 filemap_add_folio+0x38/0xa0
 __filemap_get_folio+0x186/0x340
 ext4_da_write_begin+0xbf/0x2b0 [ext4]
 generic_perform_write+0xd8/0x240
 ext4_buffered_write_iter+0x8c/0x140 [ext4]
 vfs_write+0x235/0x3f0
 ksys_write+0x6b/0xf0
 do_syscall_64+0x34/0x90
 entry_SYSCALL_64_after_hwframe+0x6e/0xd8
RIP: 0033:0x7fe7b978b350
 </TASK>`.split('\n');

async function buildSparse(path: string): Promise<{ lines: number; dumps: number }> {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  const target = sizeMb * 1024 * 1024;
  let bytes = 0;
  let lines = 0;
  let dumps = 0;
  let t = 1.0;
  let buf = '';
  while (bytes < target) {
    t += 0.000731;
    const ts = `[${t.toFixed(6).padStart(12)}] `;
    if (lines % 5000 === 4999) {
      for (const l of DUMP) buf += `${ts}${l}\n`;
      lines += DUMP.length;
      dumps++;
    } else {
      buf += `${ts}${ORDINARY[lines % ORDINARY.length]}\n`;
      lines++;
    }
    if (buf.length > 1 << 20) {
      bytes += Buffer.byteLength(buf);
      if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()));
      buf = '';
    }
  }
  out.end(buf);
  await new Promise<void>((r) => out.once('finish', () => r()));
  return { lines, dumps };
}

// The dense log: the lab's xrun_debug dumps in plain dmesg format (6.1, QEMU, snd-dummy),
// comment lines dropped, repeated until the size is reached.
const LAB_DUMPS = [
  'lab-6.1-x86_64-shapes-dmesg.txt',
  'lab-6.1-x86_64-io-load-ext4-writeback-kernel.txt',
  'lab-6.1-x86_64-lockup-test_unlock-irq.txt',
  'lab-6.1-x86_64-idle-amd_e400_idle.txt',
  'lab-6.1-x86_64-process-context-player-write.txt',
];

async function buildDense(path: string): Promise<{ lines: number; dumps: number }> {
  const { analyzeText } = await import('../src/analysis/analyzer.js');
  const unit =
    LAB_DUMPS.map((name) =>
      readFileSync(new URL(`../test/fixtures/kernel-logs/${name}`, import.meta.url), 'utf8')
        .split('\n')
        .filter((l) => l.length > 0 && !l.startsWith('#'))
        .join('\n'),
    ).join('\n') + '\n';
  const perUnit = analyzeText(unit).events.length;
  const unitLines = unit.split('\n').length - 1;
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  const block = unit.repeat(Math.max(1, Math.floor((1 << 20) / unit.length)));
  const perBlock = block.length / unit.length;
  const target = sizeMb * 1024 * 1024;
  let bytes = 0;
  let units = 0;
  while (bytes < target) {
    bytes += Buffer.byteLength(block);
    units += perBlock;
    if (!out.write(block)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  out.end();
  await new Promise<void>((r) => out.once('finish', () => r()));
  return { lines: units * unitLines, dumps: units * perUnit };
}

function timeGrep(path: string): { secs: number; cpu: number; count: number } {
  // /usr/bin/time gives grep's own CPU time (user+sys), robust when the machine is shared.
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', 'grep', '-c', 'XRUN', path], {
    encoding: 'utf8',
  });
  const [e, u, sy] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { secs: e!, cpu: u! + sy!, count: Number(r.stdout.trim()) };
}

interface AnalyzeRun {
  secs: number;
  cpu: number;
  events: number;
  framesKept: number;
  maxRssKb: number;
  wallSecs: number;
}

function timeAnalyze(path: string, format: 'text' | 'json'): AnalyzeRun {
  const t0 = process.hrtime.bigint();
  // The child measures one real report; the built program runs without the tsx loader.
  const child = fileURLToPath(new URL('./analyze-child.mjs', import.meta.url));
  const r = spawnSync(
    process.execPath,
    [
      ...(build.useDist ? [] : ['--import', 'tsx']),
      child,
      path,
      format,
      build.useDist ? 'dist' : 'src',
    ],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  const wallSecs = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`analyze child failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as Omit<AnalyzeRun, 'wallSecs'>;
  return { ...j, wallSecs };
}

const best = (runs: AnalyzeRun[]): AnalyzeRun => ({
  secs: Math.min(...runs.map((x) => x.secs)),
  cpu: Math.min(...runs.map((x) => x.cpu)),
  events: runs[0]!.events,
  framesKept: runs[0]!.framesKept,
  maxRssKb: Math.max(...runs.map((x) => x.maxRssKb)),
  wallSecs: Math.min(...runs.map((x) => x.wallSecs)),
});

async function benchCase(
  name: string,
  goal: number,
  build: (path: string) => Promise<{ lines: number; dumps: number }>,
  dir: string,
): Promise<void> {
  const file = join(dir, `${name}.log`);
  process.stderr.write(`building the ${name} ${sizeMb} MB log in ${dir} …\n`);
  const { lines, dumps } = await build(file);
  const mb = statSync(file).size / 1048576;
  timeGrep(file); // warm the page cache so both read from memory
  // Interleaved, best of 3 (wall and CPU separately): the machine is shared, so grep and
  // analyze see the same load and the minimum is the fair number.
  const gs: ReturnType<typeof timeGrep>[] = [];
  const ts: AnalyzeRun[] = [];
  const js: AnalyzeRun[] = [];
  for (let i = 0; i < 3; i++) {
    gs.push(timeGrep(file));
    ts.push(timeAnalyze(file, 'text'));
    js.push(timeAnalyze(file, 'json'));
  }
  const g = {
    secs: Math.min(...gs.map((x) => x.secs)),
    cpu: Math.min(...gs.map((x) => x.cpu)),
    count: gs[0]!.count,
  };
  const a = best(ts);
  const j = best(js);
  const rate = (s: number): number => mb / Math.max(s, 0.001);
  console.log(`\n[${name}] log: ${mb.toFixed(0)} MB, ${lines} lines, ${dumps} XRUN dumps`);
  console.log(
    `grep -c XRUN   : wall ${g.secs.toFixed(3)} s = ${rate(g.secs).toFixed(0)} MB/s; cpu ${g.cpu.toFixed(3)} s = ${rate(g.cpu).toFixed(0)} MB/s (count ${g.count})`,
  );
  for (const [label, x] of [
    ['analyze (text)', a],
    ['analyze --json', j],
  ] as const) {
    console.log(
      `${label} : wall ${x.secs.toFixed(3)} s = ${rate(x.secs).toFixed(0)} MB/s; cpu ${x.cpu.toFixed(3)} s = ${rate(x.cpu).toFixed(0)} MB/s (${x.events} events, ${x.framesKept} with frames; process wall ${x.wallSecs.toFixed(2)} s incl. startup); peak RSS ${(x.maxRssKb / 1024).toFixed(0)} MB`,
    );
  }
  console.log(
    `ratio analyze/grep: text wall ${(rate(a.secs) / rate(g.secs)).toFixed(3)}, cpu ${(rate(a.cpu) / rate(g.cpu)).toFixed(3)}; json wall ${(rate(j.secs) / rate(g.secs)).toFixed(3)}, cpu ${(rate(j.cpu) / rate(g.cpu)).toFixed(3)}  (goal ≥ ${goal})`,
  );
  console.log(
    `peak RSS: text ${(a.maxRssKb / 1024).toFixed(0)} MB, json ${(j.maxRssKb / 1024).toFixed(0)} MB  (goal < 200 MB)`,
  );
  if (a.events !== dumps)
    console.log(`WARNING: expected ${dumps} events, analyze found ${a.events}`);
  if (!keep) rmSync(file, { force: true });
  else console.log(`kept ${file}`);
}

const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-bench-'));
try {
  if (onlyCase !== 'dense') await benchCase('sparse', 0.35, buildSparse, dir);
  if (onlyCase !== 'sparse') await benchCase('dense', 0.1, buildDense, dir);
  const os = await import('node:os');
  console.log(
    `\nload average: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${os.cpus().length} CPUs`,
  );
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
