// Debian's own kernel in the lab (--kernel debian): it boots through xrunhunt's initramfs with
// the boot options of the self-built kernels (--threadirqs, --preempt none), its sound modules
// load afterwards from the unpacked package (snd-dummy before the payload, others on demand
// with plain `modprobe`), and aplay plays on snd-dummy. One boot; `== name` sections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execInLab, labSections as sections } from '../helpers/lab.js';
import { debianLabSkip } from './debian-lab.js';

const skip = await debianLabSkip('debian');

test(
  'Debian kernel: boots with --threadirqs --preempt none, snd-dummy is loaded, modprobe of the other card drivers works, aplay plays',
  { skip, timeout: 600_000 },
  async () => {
    const script = [
      'echo "== release"; uname -r',
      'echo "== cmdline"; cat /proc/cmdline',
      'echo "== preempt"; cat /sys/kernel/debug/sched/preempt',
      'echo "== irqthreads"; ps -e -o comm= | grep -c "^irq/"',
      'echo "== cards"; cat /proc/asound/cards',
      'echo "== modprobe"; modprobe -a snd-aloop snd-hda-intel snd-usb-audio snd-intel8x0; echo "rc=$?"; grep -c "\\[Loopback" /proc/asound/cards; lsmod | grep -E "^(snd_hda_intel|snd_usb_audio|snd_intel8x0) " | wc -l',
      'echo "== aplay"; aplay -q -D hw:CARD=Dummy,DEV=0 -t raw -f S16_LE -r 48000 -c 2 -d 2 /dev/zero; echo "rc=$?"',
      'echo "== end"',
    ].join('\n');
    const r = await execInLab(script, {
      labOptions: ['--kernel', 'debian', '--threadirqs', '--preempt', 'none', '--timeout', '8m'],
      timeoutMs: 560_000,
    });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const s = sections(r.stdout);
    assert.ok(s.has('end'), r.stdout);
    assert.match(s.get('release')!, /^\d+\.\d+\.\d+-\d+-amd64$/m);
    assert.match(s.get('cmdline')!, /\bthreadirqs\b/);
    assert.match(s.get('cmdline')!, /\bpreempt=none\b/);
    // PREEMPT_DYNAMIC: the active model is in parentheses.
    assert.match(s.get('preempt')!, /\(none\)/);
    assert.ok(Number(s.get('irqthreads')!.trim()) > 0, `irq threads: ${s.get('irqthreads')}`);
    assert.match(s.get('cards')!, /^ 0 \[Dummy\s*\]/m);
    assert.match(s.get('modprobe')!, /^rc=0\n1\n3\n/);
    assert.match(s.get('aplay')!, /^rc=0$/m);
    process.stderr.write(
      `lab debian boot: ${r.stderr
        .split('\n')
        .filter((l) => /boot \d/.test(l))
        .join('')}\n`,
    );
  },
);
