// Stock kernels, proven on Debian's own kernel in the lab (`--kernel debian`: linux-image-amd64,
// no SND_DEBUG, no xrun_debug, kprobes on): doctor names the kprobe backend, a session under
// IO load captures XRUN stacks through the kprobe and ranks kernel offenders, the probe and
// its tracing instance are gone afterwards — also after a kill -9, at the next start — and with
// the lab's out-of-tree injector (xrunhunt_inject.ko) the injected function is ranked first.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { execInLab, labSections as sections, GUEST_XRUNHUNT as X } from '../helpers/lab.js';
import { debianLabSkip } from './debian-lab.js';
import { INJECTOR_MODULE, INJECTOR_UNLOCK_FUNCTION } from '../../src/lab/injector.js';

const T = '/sys/kernel/tracing';
const DEVICE = 'hw:CARD=Dummy,DEV=0';

interface Report {
  kernelCapture: { source: string; lostMessages: number };
  events: {
    kind: string;
    pcm: string | null;
    offender: { class: string; module: string | null };
  }[];
  offenders: { function: string | null; module: string | null; count: number }[];
  classShares: Record<string, number>;
  xruns: unknown[];
  correlation: { matched: number };
  warnings: string[];
  limitations: string[];
}

const skip = await debianLabSkip('debian');

const json = (text: string): Report => JSON.parse(text.replace(/\nrc=\d+\s*$/, '')) as Report;

test(
  'Debian kernel in the lab: no xrun_debug, doctor names kprobe, a session under IO load ranks kernel offenders from kprobe stacks, nothing is left behind (kill -9 included)',
  { skip, timeout: 900_000 },
  async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')), 'results');
    const script = [
      `echo "== files"; ls /proc/asound/card0/pcm0p/; ls ${T}/events | grep -c '^snd_pcm$'; true`,
      `echo "== doctor"; ${X} doctor --json; echo "rc=$?"`,
      `echo "== session"; ${X} session --device ${DEVICE} --period 64 --periods 2 --phases idle:3s,write:12s --out s1 --json; echo "rc=$?"`,
      `echo "== after"; cat ${T}/kprobe_events; ls ${T}/instances; echo end`,
      // kill -9 while the probe is installed; the next start must remove it first.
      `${X} session --device ${DEVICE} --period 64 --periods 2 --phases idle:60s --capture kprobe >/dev/null 2>&1 & S=$!`,
      `for i in $(seq 1 60); do grep -q xrunhunt/xrun ${T}/kprobe_events && break; sleep 0.5; done; sleep 1`,
      `kill -9 $S; wait $S 2>/dev/null`,
      `echo "== killed"; cat ${T}/kprobe_events; ls ${T}/instances; cat ${T}/instances/xrunhunt/events/xrunhunt/xrun/enable 2>/dev/null; echo end`,
      `echo "== next"; ${X} session --device ${DEVICE} --phases idle:1s --capture none --json >/dev/null 2>next.err; echo "rc=$?"; cat next.err`,
      `echo "== restored"; cat ${T}/kprobe_events; ls ${T}/instances; echo end`,
    ].join('\n');
    try {
      const r = await execInLab(script, {
        labOptions: ['--kernel', 'debian', '--scratch', '3G', '--out', out, '--timeout', '12m'],
        timeoutMs: 840_000,
      });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      const s = sections(r.stdout);
      assert.ok(s.has('restored'), `${r.stdout}\n${r.stderr}`);

      // Built like a distribution kernel: no xrun_debug, no xrun_injection, no snd_pcm events.
      const files = s.get('files')!;
      assert.doesNotMatch(files, /xrun_debug/);
      assert.match(files, /^0$/m, 'no events/snd_pcm');

      const doctor = JSON.parse(s.get('doctor')!.replace(/\nrc=\d+\s*$/, '')) as {
        capture: { backend: string; usable: boolean; offered: string[] };
        checks: { id: string; status: string; summary: string }[];
      };
      assert.equal(doctor.capture.backend, 'kprobe');
      assert.equal(doctor.capture.usable, true);
      assert.deepEqual(doctor.capture.offered, ['kprobe']);
      const xd = doctor.checks.find((c) => c.id === 'xrun_debug');
      assert.ok(xd && xd.status !== 'ok', JSON.stringify(xd));

      const report = json(s.get('session')!);
      process.stderr.write(
        `lab debian session 64/2 idle:3s,write:12s: ${report.xruns.length} userspace xruns, ${report.events.length} kprobe events, classes ${JSON.stringify(report.classShares)}, matched ${report.correlation.matched}; top: ${report.offenders
          .slice(0, 3)
          .map((o) => `${o.function} [${o.module ?? ''}] ${o.count}`)
          .join(', ')}\n`,
      );
      assert.equal(report.kernelCapture.source, 'trace_pipe');
      const xruns = report.events.filter((e) => e.kind === 'xrun');
      assert.ok(xruns.length >= 10, `expected at least 10 kprobe XRUN stacks, got ${xruns.length}`);
      assert.ok(
        xruns.some((e) => e.offender.class === 'kernel'),
        'some stacks interrupted kernel code',
      );
      assert.ok(report.offenders.length > 0, 'kernel offenders ranked');
      assert.ok(
        xruns.every((e) => e.pcm === 'pcmC0D0p/sub0'),
        `the fetch args name the stream: ${[...new Set(xruns.map((e) => e.pcm))].join(', ')}`,
      );
      assert.ok(report.correlation.matched > 0, 'userspace xruns matched to kprobe events');
      assert.ok(
        !report.limitations.some((l) => l.startsWith('No kernel XRUN dumps')),
        report.limitations.join('\n'),
      );
      const bundle = JSON.parse(
        gunzipSync(readFileSync(join(out, 's1', 'bundle.json.gz'))).toString(),
      ) as {
        params: { captureBackend: string };
      };
      assert.equal(bundle.params.captureBackend, 'kprobe');
      const log = readFileSync(join(out, 's1', 'kernel.log'), 'utf8');
      assert.match(log, /xrun: \(__snd_pcm_xrun\+0x0\//);
      assert.match(log, /^ => asm_sysvec_apic_timer_interrupt\+/m);

      // Restored after a normal end …
      assert.doesNotMatch(s.get('after')!, /xrunhunt/);
      // … still installed right after a kill -9 …
      assert.match(s.get('killed')!, /p:xrunhunt\/xrun __snd_pcm_xrun/);
      // … and removed by the next start, which says so.
      assert.match(s.get('next')!, /killed xrunhunt run .* restoring/);
      assert.doesNotMatch(s.get('restored')!, /xrunhunt/);
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true });
    }
  },
);

// The same ground truth on snd-dummy (an hrtimer) and on QEMU's Intel HDA (snd-hda-intel, a PCI
// MSI period interrupt): the shape most users have is Debian's kernel on an HDA card.
// Each section holds interrupts off for about twice the 512-frame buffer (10.7 ms), so every
// section ends in an XRUN the period interrupt detects as it lands in the injector's unlock
// function. With 10 ms sections (just under the buffer) only the sections that met an already
// late refill did: 50 of 709 stacks on a quiet host, 4 of 205 in a CI run at high load, where
// TCG's own lateness made the rest.
const SECTION_MS = 20;
const CARDS = ['dummy', 'hda'] as const;
// Both cards in one boot (a Debian boot is ~10 s of the file's time): the injector runs for the
// whole payload either way, and each session plays on one card while the other stays idle, its
// interrupts steered to the same CPU. The two sessions run one after the other.
let sharedGuest: Promise<{ out: string; r: Awaited<ReturnType<typeof execInLab>> }> | undefined;
const groundTruthGuest = (): NonNullable<typeof sharedGuest> =>
  (sharedGuest ??= (async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')), 'results');
    const script = CARDS.map((card) => {
      const device = card === 'dummy' ? DEVICE : 'hw:CARD=Intel,DEV=0';
      // snd-dummy names the injector in ~9 of 10 stacks: 60 of them are the evidence (~6 s). On
      // HDA most stacks are the player's own recoveries (~6 % named): the full 20 s.
      const until = card === 'dummy' ? ' --until-xruns 60' : '';
      return `${X} session --device ${device} --period 256 --periods 2 --phases idle:20s${until} --out s-${card} --json > s-${card}.json; echo "rc ${card}=$?"`;
    }).join('\n');
    const r = await execInLab(script, {
      labOptions: [
        '--kernel',
        'debian',
        ...CARDS.flatMap((c) => ['--card', c]),
        '--inject',
        `lockup:${SECTION_MS}:irq`,
        '--out',
        out,
        '--timeout',
        // Debian's boot (initramfs, modules over 9p) took 90–210 s under TCG at host load 20–33.
        '13m',
      ],
      timeoutMs: 840_000,
    });
    return { out, r };
  })());
after(async () => {
  if (!sharedGuest) return;
  const { out } = await sharedGuest;
  rmSync(join(out, '..'), { recursive: true, force: true });
});
for (const card of CARDS) {
  test(
    `Debian kernel in the lab, --card ${card}, --inject lockup:${SECTION_MS}:irq: the kprobe stacks rank the injector's unlock function first`,
    { skip, timeout: 900_000 },
    async () => {
      const { out, r } = await groundTruthGuest();
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^rc ${card}=[02]$`, 'm'), `${r.stdout}\n${r.stderr}`);
      const report = JSON.parse(readFileSync(join(out, `s-${card}.json`), 'utf8')) as Report;
      const xruns = report.events.filter((e) => e.kind === 'xrun');
      const named = xruns.filter((e) => e.offender.module === INJECTOR_MODULE).length;
      process.stderr.write(
        `lab debian ${card} ground truth lockup:${SECTION_MS}:irq 256/512: ${named} of ${xruns.length} kprobe stacks name ${INJECTOR_MODULE}; top: ${report.offenders
          .slice(0, 3)
          .map((o) => `${o.function} [${o.module ?? ''}] ${o.count}`)
          .join(', ')}\n`,
      );
      assert.equal(report.kernelCapture.source, 'trace_pipe');
      assert.ok(xruns.length >= 10, `expected at least 10 kprobe XRUN stacks, got ${xruns.length}`);
      const top = report.offenders[0];
      assert.ok(top, 'a ranked offender');
      assert.equal(top.module, INJECTOR_MODULE, `top offender ${top.function} [${top.module}]`);
      assert.equal(top.function, INJECTOR_UNLOCK_FUNCTION);
      // Measured with 10 ms sections (load average 24 on the host, 2026-12-01): 33 of 225
      // captured stacks in xrunhunt_inject_unlock, the next offender (p9_virtio_request) 9; the
      // rest were the player's own process-context writes, 9p, the emulated clocksource and user
      // mode. With 20 ms sections (quiet host, 2026-12-04): 195 of 211 on snd-dummy (next:
      // __schedule 3); on HDA 44 of 785 (next: __schedule 4), the rest the player's own
      // process-context recoveries. The ranking with a margin over the runner-up is the claim.
      // On HDA the runner-up can be the emulated HPET clocksource (read_hpet, a TCG artefact:
      // a slow emulated read where the late interrupt lands): 30 against 22 once with 10 ms
      // sections, in a CI run with a second guest beside it. There the margin is 1.25x; on
      // snd-dummy, 2x.
      const second = report.offenders[1];
      const margin = card === 'dummy' ? 2 : 1.25;
      assert.ok(
        !second || top.count >= margin * second.count,
        `top ${top.count} vs second ${second?.function} ${second?.count} (margin ${margin}x)`,
      );
      // On snd-dummy nearly every section is an XRUN named in the injector (92 % measured): at
      // least half. On HDA most XRUNs are the player's own process-context recoveries (44 of
      // 785 named, 6 %): an absolute floor of 15 named stacks.
      if (card === 'dummy')
        assert.ok(
          named / xruns.length >= 0.5,
          `only ${named} of ${xruns.length} name ${INJECTOR_MODULE}`,
        );
      else assert.ok(named >= 15, `only ${named} of ${xruns.length} name ${INJECTOR_MODULE}`);
    },
  );
}
