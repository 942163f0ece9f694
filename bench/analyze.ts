// Benchmark (not a test): analyze's throughput on a large realistic kernel log next to
// `grep -c XRUN` on the same file in the same run, plus analyze's peak memory.
// Goal: analyze ≥ 0.25 × grep's MB/s, peak RSS < 200 MB.
// Usage: npm run bench:analyze [-- --size-mb 200] [--keep]
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);

if (args[0] === '--child') {
  // Child mode: run the real IO shell on the file, print one JSON line with the numbers.
  const { analyzeFiles } = await import('../src/analysis/analyze-files.js');
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const r = await analyzeFiles([args[1]!], { stdin: process.stdin });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  process.stdout.write(
    JSON.stringify({
      secs,
      cpu: (c.user + c.system) / 1e6,
      events: r.events.length,
      offenders: r.offenders.length,
      maxRssKb: process.resourceUsage().maxRSS,
    }) + '\n',
  );
  process.exit(0);
}

const sizeMb = Number(args[args.indexOf('--size-mb') + 1] ?? 200) || 200;
const keep = args.includes('--keep');

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

async function build(path: string): Promise<{ lines: number; dumps: number }> {
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

function timeGrep(path: string): { secs: number; cpu: number; count: number } {
  // /usr/bin/time gives grep's own CPU time (user+sys), robust when the machine is shared.
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', 'grep', '-c', 'XRUN', path], {
    encoding: 'utf8',
  });
  const [e, u, sy] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { secs: e!, cpu: u! + sy!, count: Number(r.stdout.trim()) };
}

function timeAnalyze(path: string): {
  secs: number;
  cpu: number;
  events: number;
  maxRssKb: number;
  wallSecs: number;
} {
  const t0 = process.hrtime.bigint();
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', path], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const wallSecs = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`analyze child failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
    secs: number;
    cpu: number;
    events: number;
    maxRssKb: number;
  };
  return { ...j, wallSecs };
}

const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-bench-'));
const file = join(dir, 'kern.log');
try {
  process.stderr.write(`building a ${sizeMb} MB log in ${dir} …\n`);
  const { lines, dumps } = await build(file);
  const mb = statSync(file).size / 1048576;
  timeGrep(file); // warm the page cache so both read from memory
  // Best of 3 (wall and CPU separately): the machine may be shared; the minimum is the fair number.
  const gs = [timeGrep(file), timeGrep(file), timeGrep(file)];
  const as = [timeAnalyze(file), timeAnalyze(file), timeAnalyze(file)];
  const g = {
    secs: Math.min(...gs.map((x) => x.secs)),
    cpu: Math.min(...gs.map((x) => x.cpu)),
    count: gs[0]!.count,
  };
  const a = {
    secs: Math.min(...as.map((x) => x.secs)),
    cpu: Math.min(...as.map((x) => x.cpu)),
    events: as[0]!.events,
    maxRssKb: Math.max(...as.map((x) => x.maxRssKb)),
    wallSecs: Math.min(...as.map((x) => x.wallSecs)),
  };
  const rate = (s: number): number => mb / Math.max(s, 0.001);
  console.log(`log: ${mb.toFixed(0)} MB, ${lines} lines, ${dumps} XRUN dumps`);
  console.log(
    `grep -c XRUN : wall ${g.secs.toFixed(3)} s = ${rate(g.secs).toFixed(0)} MB/s; cpu ${g.cpu.toFixed(3)} s = ${rate(g.cpu).toFixed(0)} MB/s (count ${g.count})`,
  );
  console.log(
    `analyze      : wall ${a.secs.toFixed(3)} s = ${rate(a.secs).toFixed(0)} MB/s; cpu ${a.cpu.toFixed(3)} s = ${rate(a.cpu).toFixed(0)} MB/s (${a.events} events; process wall ${a.wallSecs.toFixed(2)} s incl. startup)`,
  );
  console.log(
    `ratio analyze/grep: wall ${(rate(a.secs) / rate(g.secs)).toFixed(2)}, cpu ${(rate(a.cpu) / rate(g.cpu)).toFixed(2)}  (goal ≥ 0.25)`,
  );
  console.log(`analyze peak RSS: ${(a.maxRssKb / 1024).toFixed(0)} MB  (goal < 200 MB)`);
  console.log(
    `load average: ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${(await import('node:os')).cpus().length} CPUs`,
  );
  if (a.events !== dumps)
    console.log(`WARNING: expected ${dumps} events, analyze found ${a.events}`);
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${file}`);
}
