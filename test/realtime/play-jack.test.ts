// `xrunhunt play` against a real clock: the JACK dummy backend through the ALSA jack plugin
// (plug:jack). Runs serially (test/realtime). Margins are stated next to each assertion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { runCli } from '../helpers/cli.js';
import {
  ensureJack,
  jackMissingReason,
  probeServerLateness,
  serverQuietEnough,
  splitByServerLateness,
} from '../helpers/jack.js';
import type { JackServer } from '../helpers/jack.js';

const missing = jackMissingReason();
let jack: JackServer | undefined;

before(async () => {
  if (!missing) jack = await ensureJack();
});
after(async () => {
  await jack?.stop();
});

interface PlayJson {
  granted: { rate: number; periodFrames: number; bufferFrames: number };
  policy: { policy: string };
  endReason: string;
  frames: number;
  seconds: number;
  stallsInjected: number;
  xruns: {
    time: number;
    durationMs: number;
    framesWritten: number;
    injected: boolean;
    monotonicNs: string;
  }[];
  histograms: { headroomUs: { count: number; min: number | null }; writeUs: { count: number } };
}

test(
  'an idle 20 s run at period 64 / buffer 128 keeps time: under 1 % of it silent, none flagged injected',
  { skip: missing ?? false, timeout: 60_000 },
  async () => {
    const peer = probeServerLateness();
    const r = await runCli(['play', '--device', 'plug:jack', '--duration', '20s', '--json'], {
      timeoutMs: 50_000,
    });
    const serverLate = await peer.stop();
    const j = JSON.parse(r.stdout) as PlayJson;
    assert.equal(j.granted.periodFrames, 64);
    assert.equal(j.granted.bufferFrames, 128);
    assert.equal(j.policy.policy, 'SCHED_FIFO', r.stderr);
    // A 2.67 ms buffer on a shared 2-core VM is not xrun-free. Two kinds were measured here:
    // late wake-ups of 0.1–3 ms (1–7 per 20 s), and 15–41 ms silences while the whole machine
    // crawled — a sched_switch trace showed jackd's own RT thread and libjack's thread each
    // "running" ~2.9 ms for a few µs of work, the other vCPU idle, the writer asleep (0.3 ms on
    // CPU in a 37 ms window): the host's vCPU scheduling, not the player. The peer measured in
    // the same run tells them apart: the JACK server's own xrun callbacks come in a burst
    // spanning every silence of the second kind (and none spans an injected stall: see the
    // next test). What must hold is that the player's own silences stay far under 1 %.
    const { machine, own } = splitByServerLateness(j.xruns, serverLate);
    const list = (xs: PlayJson['xruns']): string =>
      xs.map((x) => `${x.time.toFixed(2)}s/${x.durationMs}ms`).join(', ') || 'none';
    const seen = `own xruns ${list(own)}; machine stalls (JACK server late too) ${list(machine)}; ${serverLate.length} server xrun callbacks (load average ${loadavg()[0]?.toFixed(1)})`;
    const silentMs = own.reduce((sum, x) => sum + x.durationMs, 0);
    assert.ok(silentMs < 20_000 * 0.01, `${silentMs.toFixed(1)} ms silent; ${seen}`);
    assert.equal(j.xruns.filter((x) => x.injected).length, 0, seen);
    assert.equal(r.code, j.xruns.length === 0 ? 0 : 2, r.stderr);
    // JACK's dummy clock paced 47,985–48,018 frames/s in soaks here; allow 5 % for a loaded box.
    assert.ok(j.frames > 48000 * 20 * 0.95, `frames ${j.frames}`);
    assert.ok(j.histograms.headroomUs.count > 10_000);
  },
);

test(
  '--inject-stall 20x5 yields exactly 5 injected xruns with plausible durations, and playback continues',
  { skip: missing ?? false, timeout: 60_000 },
  async (t) => {
    const peer = probeServerLateness();
    const r = await runCli(
      ['play', '--device', 'plug:jack', '--duration', '6s', '--inject-stall', '20x5', '--json'],
      { timeoutMs: 40_000 },
    );
    const serverLate = await peer.stop();
    const j = JSON.parse(r.stdout) as PlayJson;
    assert.equal(r.code, 2, r.stderr);
    assert.equal(j.stallsInjected, 5);
    const injected = j.xruns.filter((x) => x.injected);
    const seen = `xruns at ${j.xruns.map((x) => `${x.time.toFixed(2)}s/${x.durationMs}ms${x.injected ? '*' : ''}`).join(', ')} (* = injected; load average ${loadavg()[0]?.toFixed(1)})`;
    // Exactly the five injected stalls are flagged. Spontaneous late wake-ups happen on this
    // shared 2-core VM (0–2 per 6 s run of 1.6–9.5 ms at load 0.4–1.5): they are tolerated
    // while their silence stays under 1 % of the run, as in the idle test above, where the
    // machine stalls the JACK server was late for too are told apart by the same peer.
    assert.equal(injected.length, 5, seen);
    const { machine, own } = splitByServerLateness(j.xruns, serverLate);
    // The peer never excuses the player's own stall: no injected one is put down to the machine
    // — checkable only while the server's own callbacks are sparse. When the host crawls they
    // come at 20/s (measured in a CI run with 12 spontaneous xruns in 6 s) and a burst covers an
    // injected stall by chance; the run then says so instead of asserting what it cannot know.
    const server = serverQuietEnough(serverLate, j.seconds);
    const excused = machine.filter((x) => x.injected).length;
    const peerSeen = `${seen}; ${serverLate.length} server callbacks (${server.ratePerS.toFixed(1)}/s)`;
    if (server.quiet) assert.equal(excused, 0, peerSeen);
    else t.diagnostic(`server too busy to check the peer's split: ${peerSeen}`);
    const spontaneousMs = own.filter((x) => !x.injected).reduce((n, x) => n + x.durationMs, 0);
    assert.ok(spontaneousMs < 6_000 * 0.01, `${spontaneousMs.toFixed(1)} ms spontaneous; ${seen}`);
    const bufferMs = (j.granted.bufferFrames / j.granted.rate) * 1000;
    for (const x of injected) {
      // Silent from when the queue ran dry (≤ one buffer into the stall) to the refill after
      // it: ≥ stall − buffer − one JACK cycle (1.33 ms detection granularity); < stall + 5 ms
      // (the refill takes two writes; 5 ms covers a late wake-up of the JACK thread).
      assert.ok(x.durationMs >= 20 - bufferMs - 1.34, `duration ${x.durationMs} ms`);
      assert.ok(x.durationMs < 25, `duration ${x.durationMs} ms`);
      assert.ok(BigInt(x.monotonicNs) > 0n);
    }
    // Stalls are 1 s apart after a 1 s warm-up: detections at ~1, 2, 3, 4, 5 s (± 100 ms).
    injected.forEach((x, i) =>
      assert.ok(Math.abs(x.time - (i + 1) - 0.02) < 0.1, `xrun ${i} at ${x.time}`),
    );
    // Frames keep advancing after each recovery: ~1 s of audio (≥ 90 %) between xruns and after the last.
    for (let i = 1; i < 5; i++) {
      assert.ok(injected[i]!.framesWritten - injected[i - 1]!.framesWritten > 48000 * 0.9);
    }
    assert.ok(j.frames - injected[4]!.framesWritten > 48000 * 0.9, `frames ${j.frames}`);
  },
);
