// xrun_debug on the default lab kernel (debian-debug: snd-dummy with CONFIG_SND_PCM_XRUN_DEBUG),
// two checks in one boot of the default shape (they were debug.test.ts and lab-xruns.test.ts, a
// boot each). First `debug`: the files exist, `debug on/off/restore` change the kernel's own
// values, and `debug inject` on a running stream makes an XRUN report appear in the kernel log.
// Then the lab end to end: xrun_debug on, aplay at period 64 / buffer 128 on snd-dummy under IO
// load (dd with fsync on the ext4 scratch disk) for 20 s, xrun_debug restored, and the analysis
// on the host of that section's slice of the kernel log. Real XRUN dumps with real stacks, from
// real ext4 writeback; nothing here is mocked. Sections are separated by `== name` markers.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSkip } from '../helpers/lab.js';
import { labSections as sections, GUEST_XRUNHUNT as X } from '../helpers/lab.js';
import { analyzeLog } from './lab-analyze.js';

const F = '/proc/asound/card0/pcm0p/xrun_debug';
const XRUN_DEBUG = F;

/** 20 s of audio at 64/128 under IO: TCG measured 2,300–2,470 xruns/min (platform-facts §5). */
const PLAY_SECONDS = 20;

const DEBUG_SCRIPT = [
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
];

// The IO section, after the debug one: its slice of the kernel log starts at the line count
// taken before it (log_buf_len keeps the whole boot), so the debug section's injected dump is
// not in it.
const IO_SCRIPT = [
  'echo "== io"',
  'before=$(dmesg | wc -l)',
  `X=${XRUN_DEBUG}`,
  'orig=$(cat $X)',
  'echo "xrun_debug before: $orig"',
  'echo 3 > $X',
  '(while :; do dd if=/dev/zero of=/mnt/scratch/load bs=1M count=32 conv=fsync status=none; rm -f /mnt/scratch/load; done) &',
  'load=$!',
  `aplay -D hw:0,0 -t raw -f S16_LE -r 48000 -c 2 --period-size=64 --buffer-size=128 -d ${PLAY_SECONDS} /dev/zero 2> aplay.err`,
  'kill $load; wait $load 2>/dev/null',
  'echo "$orig" > $X',
  'echo "xrun_debug after: $(cat $X)"',
  'echo "aplay underruns: $(grep -c underrun aplay.err)"',
  'dmesg | tail -n +$((before + 1)) > io-dmesg.txt',
];

let guestRun: Promise<{ out: string; r: Awaited<ReturnType<typeof execInLab>> }> | undefined;
// One boot for both checks, shared by the tests below.
const sharedGuest = (): NonNullable<typeof guestRun> =>
  (guestRun ??= (async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')), 'results');
    const r = await execInLab([...DEBUG_SCRIPT, ...IO_SCRIPT].join('\n'), {
      labOptions: ['--out', out, '--timeout', '8m'],
      timeoutMs: 540_000,
    });
    return { out, r };
  })());
after(async () => {
  if (!guestRun) return;
  const { out } = await guestRun;
  rmSync(join(out, '..'), { recursive: true, force: true });
});

test(
  'lab: real xrun_debug files, on/off/restore change the kernel, inject gives an XRUN dump',
  { skip: labSkip(), timeout: 600_000 },
  async () => {
    const { r } = await sharedGuest();
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

test(
  'IO load at period 64 / buffer 128: XRUN dumps with stacks, kernel offenders, xrun_debug restored',
  { skip: labSkip(), timeout: 600_000 },
  async () => {
    const { out, r } = await sharedGuest();
    assert.equal(r.code, 0, `lab exec failed:\n${r.stderr}`);
    assert.match(r.stdout, /xrun_debug before: 0\b/);
    assert.match(
      r.stdout,
      /xrun_debug after: 0\b/,
      'xrun_debug must be back to its original value',
    );
    const underruns = Number(/aplay underruns: (\d+)/.exec(r.stdout)?.[1] ?? 'NaN');
    assert.ok(underruns > 0, `aplay saw no underruns under IO load (stdout: ${r.stdout})`);

    const dmesg = join(out, 'io-dmesg.txt');
    assert.ok(
      existsSync(dmesg),
      "the IO section's slice of the guest kernel log is in the results",
    );
    const text = readFileSync(dmesg, 'utf8');
    assert.match(text, /XRUN: pcmC0D0p/);

    const a = await analyzeLog(dmesg);
    const xruns = a.summary.byKind['xrun'] ?? 0;
    const withStacks = a.events.filter((e) => e.kind === 'xrun' && e.frames.length > 0).length;
    const kernel = a.summary.byClass['kernel'] ?? 0;
    process.stderr.write(
      `lab IO 64/128 ${PLAY_SECONDS}s: aplay underruns ${underruns}, XRUN events ${xruns} (${withStacks} with stacks), classes ${JSON.stringify(a.summary.byClass)}, top: ${a.offenders
        .slice(0, 5)
        .map((o) => `${o.function}${o.module ? ` [${o.module}]` : ''} ${o.count}`)
        .join(', ')}\n`,
    );
    assert.ok(xruns >= 10, `expected at least 10 XRUN events, got ${xruns}`);
    assert.ok(withStacks >= 10, `expected XRUN events with stacks, got ${withStacks}`);
    assert.ok(
      kernel > 0,
      `expected offenders of class kernel, got ${JSON.stringify(a.summary.byClass)}`,
    );
    assert.ok(a.offenders.length > 0, 'the ranking names kernel functions');
  },
);
