// PipeWire in the lab guest, in both scheduling modes: `lab exec --pipewire timer|irq` starts
// PipeWire + WirePlumber on snd-dummy with pw-play as an ordinary client, a write load runs on
// the scratch disk, and `xrunhunt watch` (an ordinary observer) must find the stream and name
// pipewire as its owner. Whatever XRUNs occur, none may be detected by the watcher itself
// (reading /proc/asound/…/status of a running stream updates its hardware pointer: see
// src/watch/status-poll-policy.ts). XRUN counts are load-dependent and not asserted; they are
// printed. Nothing is mocked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSkip } from '../helpers/lab.js';
import { innerXrunhuntArgv } from '../../src/lab/lab-runner.js';
import { shellQuote } from '../../src/lab/guest-script.js';
import type { PipewireMode } from '../../src/lab/guest-pipewire.js';
import { summariseDetections, xrunDetections } from '../../src/lab/guest-pipewire-detection.js';
import { assertIrqModeSupported } from '../../src/lab/guest-pipewire-support.js';
import { runCli } from '../helpers/cli.js';

/** Why IRQ mode cannot run on this host's PipeWire (Debian 12's 0.3.65), or null. */
function irqUnsupported(): string | null {
  try {
    assertIrqModeSupported(['dummy']);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

interface WatchLine {
  type: string;
  streams?: { owner: string; pcm: string; periodFrames: number; bufferFrames: number }[];
  watch?: { stopReason: string; streams: { owner: string; xruns: number }[] };
}

const xrunhunt = (args: string[]): string => innerXrunhuntArgv(args).map(shellQuote).join(' ');

async function pipewireRun(mode: PipewireMode): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-'));
  const out = join(base, 'results');
  try {
    const script = [
      `${xrunhunt(['load', 'write', '--duration', '35s', '--dir', '/mnt/scratch', '--min-free', '0'])} > load.txt 2>&1 &`,
      'load=$!',
      `${xrunhunt(['watch', '--duration', '30s', '--out', 'watch-bundle', '--json'])} > watch.ndjson 2> watch.err`,
      'echo "watch exit: $?"',
      'wait $load',
    ].join('\n');
    const r = await execInLab(script, {
      labOptions: ['--pipewire', mode, '--out', out, '--timeout', '9m'],
      timeoutMs: 580_000,
    });
    const file = (name: string): string =>
      existsSync(join(out, name)) ? readFileSync(join(out, name), 'utf8') : '';
    assert.equal(
      r.code,
      0,
      `lab exec failed:\n${r.stderr.slice(-2000)}\npipewire.log:\n${file('pipewire.log').slice(-1500)}`,
    );
    // The server opened the card and ran in the asked mode.
    const setup = file('pipewire-setup.txt');
    assert.match(setup, new RegExp(`^mode: ${mode}$`, 'm'));
    assert.match(setup, /^stream: \/proc\/asound\/card0\/pcm0p\/sub0$/m, setup);
    assert.match(setup, /^period_size: 256$/m, setup);
    assert.match(r.stdout, /watch exit: [02]\b/, `watch.err:\n${file('watch.err').slice(-2000)}`);

    const lines = file('watch.ndjson')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as WatchLine);
    const start = lines.find((l) => l.type === 'watch-start');
    assert.ok(start?.streams, 'watch-start names the streams');
    assert.deepEqual(
      start.streams.map((s) => [s.pcm, s.owner, s.periodFrames]),
      [['pcmC0D0p', 'pipewire', 256]],
    );
    const final = lines.at(-1);
    assert.equal(final?.type, 'watch-report');
    assert.equal(final.watch?.streams[0]?.owner, 'pipewire');

    // Who detected the XRUNs: never the watcher (comm "node" in process context).
    const detections = xrunDetections(file('dmesg.txt'));
    const sum = summariseDetections(detections);
    process.stderr.write(
      `lab pipewire ${mode}: ${sum.total} XRUN dumps, by context ${JSON.stringify(sum.byContext)}, process context ${JSON.stringify(sum.processContextComms)}; watch counted ${final.watch?.streams[0]?.xruns}\n`,
    );
    assert.equal(sum.byContext['proc-status'], 0, 'a status read detected an XRUN');
    const byWatcher = detections.filter(
      (d) => d.context !== 'period-interrupt' && (d.comm === 'node' || d.comm === 'xrunhunt'),
    );
    assert.deepEqual(byWatcher, [], 'XRUNs detected by xrunhunt itself');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

test(
  'PipeWire in timer mode (desktop default): watch names pipewire, never detects an XRUN itself',
  { skip: labSkip(), timeout: 600_000 },
  () => pipewireRun('timer'),
);

test(
  'PipeWire in irq mode (period interrupts): watch names pipewire, never detects an XRUN itself',
  {
    skip: labSkip() || (irqUnsupported() ? `host PipeWire: ${irqUnsupported()}` : false),
    timeout: 600_000,
  },
  () => pipewireRun('irq'),
);

test(
  'on a PipeWire without api.alsa.disable-tsched, --pipewire irq is refused before booting, also on the BATCH usb card',
  { skip: labSkip() || (irqUnsupported() ? false : 'this PipeWire supports IRQ mode') },
  async () => {
    const r = await runCli(
      [
        'lab',
        'exec',
        '--card',
        'usb',
        '--pipewire',
        'irq',
        '--pipewire-build',
        'host',
        '--',
        'true',
      ],
      {
        timeoutMs: 60_000,
      },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /--pipewire irq needs a PipeWire whose ALSA plugin reads api\.alsa\.disable-tsched/,
    );
    // 0.3.65 imports no snd_pcm_poll_descriptors: BATCH (usb) keeps period interrupts, not IRQ mode.
    assert.match(r.stderr, /on --card usb \(a BATCH device\)[^\n]*still wakes by timer/);
    assert.match(r.stderr, /no --card gives IRQ mode/);
    assert.doesNotMatch(
      r.stderr,
      /booting| {4}at /,
      'refused before the boot, without a stack trace',
    );
  },
);
