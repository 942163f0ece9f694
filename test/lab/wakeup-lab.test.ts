// `--wakeup timer` on a real HDA card (snd-hda-intel behind QEMU's ich9-intel-hda) under
// Debian's own kernel: with period wake-ups off the card raises (nearly) no interrupts (the
// share of real time played is printed: under TCG it is the emulator's), and under a
// preempt-off lockup on the player's CPU the kernel detects the underruns in the player's own
// ioctl — snd_pcm_delay or the write after it (process context, the detecting task a thread
// of the session) — while with `--wakeup period` it detects most in the period interrupt. One boot: the injector is started by the script after the idle runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSections as sections, GUEST_XRUNHUNT as X } from '../helpers/lab.js';
import { debianLabSkip } from './debian-lab.js';
import { lockupModuleParams } from '../../src/lab/inject-spec.js';
import { readDebianMeta, resolveDebianPackage } from '../../src/lab/debian-fetch.js';
import { debianKernelLayout } from '../../src/lab/debian-kernel.js';
import { labCacheRoot } from '../../src/lab/lab-paths.js';
import { kprobeXrunRecords } from './wakeup-records.js';

// --card hda alone on Debian's kernel: only the HDA modules are loaded, so it is card 0.
const DEVICE = 'hw:0,0';
const PLAY_S = 6;
const skip = await debianLabSkip('debian');

async function injectorModule(): Promise<string> {
  const p = await resolveDebianPackage('debian');
  const meta = readDebianMeta(
    debianKernelLayout(labCacheRoot(process.env, homedir()), p.imagePackage, p.version),
  );
  if (!meta?.injectorModule)
    throw new Error('xrunhunt_inject.ko is not built: xrunhunt lab build --kernel debian');
  return meta.injectorModule;
}

interface PlayJson {
  wakeup: { requested: string; method: string; periodInterrupts: boolean };
  granted: { rate: number; periodFrames: number; bufferFrames: number };
  frames: number;
  seconds: number;
  xruns: { durationMs: number }[];
}

test(
  'Debian kernel, HDA: --wakeup timer turns the period interrupts off; under lockup:20:preempt its XRUNs are detected in the player’s own ioctl (process context), with --wakeup period mostly in the period interrupt',
  { skip, timeout: 900_000 },
  async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')), 'results');
    const params = lockupModuleParams({ kind: 'lockup', sectionMs: 20, mode: 'preempt' }).join(' ');
    const insmod = `insmod ${await injectorModule()} ${params}`;
    // The HDA line of /proc/interrupts, summed over CPUs.
    const irq = `awk '/snd_hda_intel/ { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s; exit }' /proc/interrupts`;
    const script = [
      `echo "== cards"; cat /proc/asound/cards; grep snd_hda /proc/interrupts; true`,
      // Idle: the player on CPU 1, nothing injected yet.
      ...['period', 'timer'].map(
        (m) =>
          `a=$(${irq}); ${X} play --device ${DEVICE} --wakeup ${m} --period 256 --periods 8 --duration ${PLAY_S}s --cpu 1 --json > play-${m}.json 2> play-${m}.err; rc=$?; b=$(${irq}); echo "== irq-${m}"; echo "$a $b rc=$rc"`,
      ),
      // Lockup: preemption off 20 ms of every 70 on CPU 0, where the player, its interrupts
      // (steered there, as lab --inject does) and the session run.
      `for f in /proc/irq/*/smp_affinity_list; do echo 0 > "$f"; done 2>/dev/null`,
      `stop=/run/xrunhunt-wakeup-inject.stop; rm -f "$stop"`,
      `( while [ ! -e "$stop" ]; do taskset -c 0 ${insmod} >/dev/null 2>&1; done ) & inj=$!`,
      ...['timer', 'period'].map((m) =>
        [
          `taskset -c 0 ${X} session --device ${DEVICE} --wakeup ${m} --period 256 --periods 2 --cpu 0 --phases idle:6s --capture kprobe --out s-${m} --json > s-${m}.json 2> s-${m}.err & S=$!`,
          // Every thread of the session while it runs (the writer is one of them).
          `while kill -0 $S 2>/dev/null; do ls /proc/$S/task >> tids-${m}.txt 2>/dev/null; sleep 0.5; done`,
          `wait $S; echo "== session-${m}"; echo "rc=$?"`,
        ].join('\n'),
      ),
      `touch "$stop"; wait $inj; echo "== done"`,
    ].join('\n');
    try {
      const r = await execInLab(script, {
        labOptions: ['--kernel', 'debian', '--card', 'hda', '--out', out, '--timeout', '13m'],
        timeoutMs: 840_000,
      });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      const s = sections(r.stdout);
      assert.ok(s.has('done'), `${r.stdout}\n${r.stderr}`);
      const load = `host load average ${loadavg()[0]?.toFixed(1)}`;

      // --- idle: interrupts and real time ---
      const irqs = (m: string): number => {
        const [a, b] = s.get(`irq-${m}`)!.trim().split(/\s+/).map(Number);
        return b! - a!;
      };
      const play = (m: string): PlayJson =>
        JSON.parse(readFileSync(join(out, `play-${m}.json`), 'utf8')) as PlayJson;
      // The share of the run that played: the run less the silences of its xruns.
      const playedShare = (j: PlayJson): number =>
        1 - j.xruns.reduce((n, x) => n + x.durationMs, 0) / 1000 / j.seconds;
      const pace = (j: PlayJson): number =>
        (j.frames - j.granted.bufferFrames * (1 + j.xruns.length)) /
        (j.granted.rate * j.seconds * playedShare(j));
      const period = play('period');
      const timer = play('timer');
      const periodsPlayed = period.frames / period.granted.periodFrames;
      process.stderr.write(
        `# lab wakeup hda 256/2048 idle ${PLAY_S}s: period mode ${irqs('period')} HDA irqs for ${periodsPlayed.toFixed(0)} periods, ${period.xruns.length} xruns, ${(100 * playedShare(period)).toFixed(1)} % played (pace ${(100 * pace(period)).toFixed(1)} %); timer mode ${irqs('timer')} irqs, ${(100 * playedShare(timer)).toFixed(1)} % of ${timer.seconds} s played (${timer.frames} frames written, pace ${(100 * pace(timer)).toFixed(1)} % while running), ${timer.xruns.length} xruns (${load})\n`,
      );
      // --- lockup: where the kernel detects the XRUN ---
      const tids = new Set(
        readFileSync(join(out, 'tids-timer.txt'), 'utf8').split(/\s+/).filter(Boolean).map(Number),
      );
      // Hits whose stack the capture lost (1 of 72 in a run) cannot be placed: left out.
      const records = (m: string) =>
        kprobeXrunRecords(readFileSync(join(out, `s-${m}`, 'kernel.log'), 'utf8')).filter(
          (x) => x.frames.length > 0,
        );
      const timerRecords = records('timer');
      const periodRecords = records('period');
      const inSyscall = timerRecords.filter(
        (x) =>
          !x.hardirq && !x.softirq && x.frames.includes('snd_pcm_common_ioctl') && tids.has(x.pid),
      );
      const inDelay = inSyscall.filter((x) => x.frames.includes('snd_pcm_delay'));
      const timerInIrq = timerRecords.filter((x) => x.hardirq || x.softirq);
      const inIrq = periodRecords.filter(
        (x) => x.hardirq && x.frames.includes('snd_pcm_period_elapsed'),
      );
      process.stderr.write(
        `# lab wakeup hda lockup:20:preempt 256/512: timer mode ${inSyscall.length} of ${timerRecords.length} XRUNs in the player's ioctl (${inDelay.length} in snd_pcm_delay, ${timerInIrq.length} in an interrupt; comms ${[...new Set(timerRecords.map((x) => x.comm))].join(',')}); period mode ${inIrq.length} of ${periodRecords.length} in the period interrupt (${load}); other timer-mode ones ${JSON.stringify(timerRecords.filter((x) => !inSyscall.includes(x)).slice(0, 2))}; other period-mode ones ${JSON.stringify(periodRecords.filter((x) => !inIrq.includes(x)).slice(0, 2))}\n`,
      );
      // Everything is printed above; the claims follow.
      assert.equal(timer.wakeup.method, 'no-period-wakeup', JSON.stringify(timer.wakeup));
      assert.equal(timer.wakeup.periodInterrupts, false);
      assert.equal(period.wakeup.method, 'period-interrupts');
      // The period mode takes an interrupt per period (measured 0.87–1.8 per period written,
      // refills included; ≥ 0.8 asserted: the control that the line read is the card's).
      assert.ok(irqs('period') >= 0.8 * periodsPlayed, `period mode: ${irqs('period')} irqs`);
      // Without period wake-ups HDA still raises a few, about as many in every 6 s run (22–55:
      // 2.1–4.9 % of the period mode's count over 7 runs): at most 10 % is asserted.
      assert.ok(
        irqs('timer') <= 0.1 * irqs('period'),
        `timer mode: ${irqs('timer')} irqs vs ${irqs('period')} in period mode`,
      );
      // Real time is printed, not asserted: under TCG on this shared host it varied too much
      // to be a claim about the writer. At 256 × 8 the timer mode played 44.2–100 % of the run
      // over 5 boots (host load 4.8–13.3), the period mode 97–100 % where printed. Likely
      // causes, not proven: QEMU's HDA position advances in bursts when the host is loaded (a
      // timer writer sees a burst only at its next wake-up, the period writer is woken by its
      // interrupt), and without period interrupts the kernel infers wrap-arounds from jiffies
      // (snd_pcm_update_hw_ptr0), which time lost by the guest can mislead. That the timer
      // writer keeps time on a real clock is test/realtime/play-wakeup-jack.test.ts.

      for (const m of ['timer', 'period'] as const) {
        assert.match(
          s.get(`session-${m}`)!,
          /rc=[02]\b/,
          readFileSync(join(out, `s-${m}.err`), 'utf8'),
        );
      }
      assert.ok(timerRecords.length >= 10, `timer mode: ${timerRecords.length} kprobe XRUNs`);
      assert.ok(periodRecords.length >= 10, `period mode: ${periodRecords.length} kprobe XRUNs`);
      // Timer mode: no interrupt can detect an XRUN (there are no period interrupts), so every
      // one is detected in process context, in a thread of the session, inside its ioctl:
      // mostly snd_pcm_delay, the odd one in the write that follows it. 90 % leaves room for
      // one detected by another task (measured: all of them).
      assert.equal(timerInIrq.length, 0, JSON.stringify(timerInIrq.slice(0, 2)));
      assert.ok(
        inSyscall.length >= 0.9 * timerRecords.length,
        `${inSyscall.length} of ${timerRecords.length} in the player's ioctl: ${JSON.stringify(timerRecords.slice(0, 2))}`,
      );
      // Which of the two ioctls notices it (snd_pcm_delay, or the write right after it) depends
      // on where QEMU's DMA position stands when the writer wakes: measured 21–71 % in
      // snd_pcm_delay; printed, not asserted.
      // Period mode: the period interrupt comes in during the preempt-off section (interrupts
      // stay on) and detects the XRUN before the player can run; the rest are detected by the
      // player's own write right after a section, more of them when QEMU delivers the HDA
      // interrupts late (host load). Measured 69–90 % in the interrupt; a majority asserted.
      assert.ok(
        inIrq.length > 0.5 * periodRecords.length,
        `${inIrq.length} of ${periodRecords.length} in the period interrupt: ${JSON.stringify(periodRecords.slice(0, 2))}`,
      );
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true });
    }
  },
);
