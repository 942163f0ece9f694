// The lab end to end: boot the real lab kernel, turn on xrun_debug, play at period 64 /
// buffer 128 on snd-dummy under IO load (dd with fsync on the ext4 scratch disk) for 20 s,
// restore xrun_debug, then analyze the guest's kernel log on the host. Real XRUN dumps with
// real stacks, from real ext4 writeback; nothing here is mocked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSkip } from '../helpers/lab.js';
import { analyzeLog } from './lab-analyze.js';

const XRUN_DEBUG = '/proc/asound/card0/pcm0p/xrun_debug';

/** 20 s of audio at 64/128 under IO: TCG measured 2,300–2,470 xruns/min (platform-facts §5). */
const PLAY_SECONDS = 20;

test(
  'IO load at period 64 / buffer 128: XRUN dumps with stacks, kernel offenders, xrun_debug restored',
  { skip: labSkip(), timeout: 300_000 },
  async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')), 'results');
    const script = [
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
    ].join('\n');
    try {
      const r = await execInLab(script, { labOptions: ['--out', out, '--timeout', '4m'] });
      assert.equal(r.code, 0, `lab exec failed:\n${r.stderr}`);
      assert.match(r.stdout, /xrun_debug before: 0\b/);
      assert.match(
        r.stdout,
        /xrun_debug after: 0\b/,
        'xrun_debug must be back to its original value',
      );
      const underruns = Number(/aplay underruns: (\d+)/.exec(r.stdout)?.[1] ?? 'NaN');
      assert.ok(underruns > 0, `aplay saw no underruns under IO load (stdout: ${r.stdout})`);

      const dmesg = join(out, 'dmesg.txt');
      assert.ok(existsSync(dmesg), 'the guest kernel log is in the results');
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
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true });
    }
  },
);
