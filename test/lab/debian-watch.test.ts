// watch on a stock kernel (Debian's own, `--kernel debian`: no xrun_debug, kprobes on): the same player
// and load as test/lab/watch.test.ts, but the XRUN stacks come from the kprobe backend on
// __snd_pcm_xrun. watch must pick it by itself, name the player, count its xruns, rank the
// injected xrunhunt_inject code first, and leave no kprobe behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab } from '../helpers/lab.js';
import { debianLabSkip } from './debian-lab.js';
import { INJECTOR_MODULE } from '../../src/lab/injector.js';
import { innerXrunhuntArgv } from '../../src/lab/lab-runner.js';
import { shellQuote } from '../../src/lab/guest-script.js';

const skip = await debianLabSkip('debian');

interface Final {
  type: string;
  report: {
    kernelCapture: { source: string };
    limitations: string[];
    offenders: { function: string | null; module: string | null; signature: string }[];
    events: {
      offender: { class: string; module: string | null; signature: string | null };
      frames: string[];
    }[];
  };
  watch: { stopReason: string; streams: { owner: string; xruns: number }[] };
}

test(
  "Debian kernel: watch captures through the kprobe, names the player, ranks the injector's code first, removes the kprobe",
  { skip, timeout: 900_000 },
  async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')), 'results');
    const T = '/sys/kernel/tracing';
    const watch = [
      'taskset',
      '-c',
      '1',
      ...innerXrunhuntArgv([
        'watch',
        '--until-xruns',
        '20',
        '--duration',
        '90s',
        '--out',
        '/run/w/watch',
        '--json',
      ]),
    ]
      .map(shellQuote)
      .join(' ');
    const script = [
      'W=/run/w; mkdir -p $W',
      'echo "xrun_debug files: $(ls /proc/asound/card0/pcm0p/ | grep -c xrun_debug)"',
      // SCHED_FIFO player on CPU 0 (the lab pin), IO load on CPU 1: see watch.test.ts.
      '(while [ ! -e /run/stop-player ]; do chrt -f 70 aplay -D hw:0,0 -t raw -f S16_LE -r 48000 -c 2 --period-size=256 --buffer-size=512 /dev/zero 2>> $W/aplay.err & echo $! > /run/player.pid; wait $!; done) &',
      "taskset -c 1 sh -c 'while :; do dd if=/dev/zero of=/mnt/scratch/load bs=1M count=16 conv=fsync status=none; rm -f /mnt/scratch/load; done' &",
      'load=$!',
      'sleep 1',
      `${watch} > $W/watch.ndjson 2> $W/watch.err`,
      'echo "watch exit: $?"',
      `echo "kprobes after: $(grep -c xrunhunt ${T}/kprobe_events); instances after: $(ls ${T}/instances | grep -c xrunhunt)"`,
      'touch /run/stop-player; kill $load $(cat /run/player.pid) 2>/dev/null; wait 2>/dev/null',
      'cp -r $W/. .',
    ].join('\n');
    try {
      const r = await execInLab(script, {
        labOptions: [
          '--kernel',
          'debian',
          '--inject',
          'lockup:10:irq',
          '--out',
          out,
          '--timeout',
          // Debian's boot (initramfs, modules over 9p) took 90–210 s under TCG at host load 20–33.
          '13m',
        ],
        timeoutMs: 840_000,
      });
      assert.equal(r.code, 0, `lab exec failed:\n${r.stderr}`);
      const err = existsSync(join(out, 'watch.err'))
        ? readFileSync(join(out, 'watch.err'), 'utf8')
        : '';
      assert.match(r.stdout, /xrun_debug files: 0\b/, "Debian's kernel has no xrun_debug");
      assert.match(r.stdout, /watch exit: 2\b/, `guest said: ${r.stdout}\nwatch stderr:\n${err}`);
      assert.match(r.stdout, /kprobes after: 0; instances after: 0\b/, 'nothing left in tracefs');
      const lines = readFileSync(join(out, 'watch.ndjson'), 'utf8').trim().split('\n');
      const final = JSON.parse(lines.at(-1)!) as Final;
      assert.equal(final.type, 'watch-report');
      const { report, watch: summary } = final;
      process.stderr.write(
        `lab watch debian: ${summary.stopReason}; ${summary.streams.map((s) => `${s.owner} ${s.xruns}`).join(', ')}; top ${report.offenders
          .slice(0, 3)
          .map((o) => `${o.function} [${o.module ?? ''}]`)
          .join(', ')}\n`,
      );
      assert.equal(report.kernelCapture.source, 'trace_pipe');
      assert.ok(
        !report.limitations.some((l) => /No xrun_debug/.test(l)),
        report.limitations.join('\n'),
      );
      assert.equal(summary.streams[0]?.owner, 'aplay');
      assert.ok(summary.streams[0]!.xruns >= 20, `counted ${summary.streams[0]?.xruns}`);
      const top = report.offenders[0];
      assert.ok(top, 'a ranked offender');
      const topEvents = report.events.filter((e) => e.offender.signature === top.signature);
      const inLockup = topEvents.filter(
        (e) =>
          e.offender.module === INJECTOR_MODULE ||
          e.frames.some((f) => f.endsWith(`[${INJECTOR_MODULE}]`)),
      ).length;
      assert.ok(
        topEvents.length > 0 && inLockup >= topEvents.length / 2,
        `top offender ${top.function} [${top.module}]: ${inLockup} of ${topEvents.length} in ${INJECTOR_MODULE} code`,
      );
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true });
    }
  },
);
