// xrun_debug on a real kernel: inside the lab VM (snd-dummy, CONFIG_SND_PCM_XRUN_DEBUG),
// the files exist, `debug on/off/restore` change the kernel's own values, and
// `debug inject` on a running stream makes an XRUN report appear in the kernel log.
// One VM boot runs the whole script; sections are separated by `== name` markers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execInLab, labSkip } from '../helpers/lab.js';
import { labSections as sections, GUEST_XRUNHUNT as X } from '../helpers/lab.js';

const F = '/proc/asound/card0/pcm0p/xrun_debug';

const script = [
  'export XDG_STATE_HOME=/run/xrunhunt-lab-test',
  `echo "== status"; ${X} debug status --json; echo "rc=$?"`,
  `echo "== original"; cat ${F}`,
  `echo "== on"; ${X} debug on --card Dummy --mask 3; echo "rc=$?"; cat ${F}`,
  `echo "== off"; ${X} debug off --pcm pcmC0D0p; echo "rc=$?"; cat ${F}`,
  `echo "== restore"; ${X} debug restore; echo "rc=$?"; cat ${F}`,
  // a running stream, xrun_debug on, one injected xrun
  'aplay -q -D hw:CARD=Dummy,DEV=0 -t raw -f S16_LE -r 48000 -c 2 /dev/zero 2>/dev/null & APLAY=$!',
  'sleep 2',
  `${X} debug on --pcm pcmC0D0p --mask 3 >/dev/null`,
  `echo "== inject"; ${X} debug inject --pcm pcmC0D0p; echo "rc=$?"`,
  'sleep 1; kill $APLAY; wait $APLAY 2>/dev/null',
  `${X} debug restore >/dev/null; echo "== after"; cat ${F}`,
  'echo "== dmesg"; dmesg | grep -A30 "XRUN: pcmC0D0p" | head -200',
  `echo "== doctor"; ${X} doctor --json; echo "rc=$?"`,
].join('\n');

test(
  'lab: real xrun_debug files, on/off/restore change the kernel, inject gives an XRUN dump',
  { skip: labSkip(), timeout: 600_000 },
  async () => {
    const r = await execInLab(script, { timeoutMs: 540_000 });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const s = sections(r.stdout);
    assert.ok(s.has('status') && s.has('doctor'), `${r.stdout}\n${r.stderr}`);
    const status = JSON.parse(s.get('status')!.replace(/rc=\d+\s*$/, ''));
    assert.equal(status.available, true);
    const pcms = status.streams.map((x: { pcm: string }) => x.pcm);
    assert.ok(pcms.includes('pcmC0D0p'), pcms.join(' '));
    const p = status.streams.find((x: { pcm: string }) => x.pcm === 'pcmC0D0p');
    assert.equal(p.cardId, 'Dummy');
    assert.ok(p.injection.length > 0, 'xrun_injection exists');
    const original = s.get('original')!.trim();
    assert.match(original, /^\d+$/);
    assert.match(s.get('on')!, /rc=0\s*\n3\s*$/);
    assert.match(s.get('off')!, /rc=0\s*\n0\s*$/);
    assert.match(s.get('restore')!, new RegExp(`rc=0\\s*\\n${original}\\s*$`));
    assert.match(s.get('inject')!, /rc=0/);
    assert.equal(s.get('after')!.trim(), original);
    const dmesg = s.get('dmesg')!;
    assert.match(dmesg, /XRUN: pcmC0D0p/);
    assert.match(dmesg, /Call Trace:/);
    // the injected xrun is detected in the writer's own context when it closes the proc file
    assert.match(dmesg, /__fput|snd_info_text_entry_release/);
    const doctor = JSON.parse(s.get('doctor')!.replace(/rc=\d+\s*$/, ''));
    assert.equal(doctor.capture.backend, 'xrun_debug');
    assert.equal(doctor.diagnosable, true, doctor.conclusion);
  },
);
