// Correlation speed: a long lab session under IO load has ~2,400 userspace xruns and as
// many kernel XRUN dumps per minute (TCG). correlateXruns scans a sorted window per xrun;
// the peer is the obvious all-pairs nearest-match join, measured in the same run.
// Prints ms per run and the ratio (peer / ours) at 1, 10 and 30 minutes of such a session.
import { correlateXruns } from '../src/analysis/correlate.js';

const MS = 1e6;
const START = 1_000 * 1e9;

function fixture(n: number) {
  const xruns = [];
  const events = [];
  for (let i = 0; i < n; i++) {
    const t = i * 25 + (i % 5);
    events.push({ kind: 'xrun', pcm: 'pcmC0D0p:0', time: (START + t * MS) / 1e9 });
    if (i % 10 !== 0) xruns.push({ monotonicNs: START + (t + 3 + (i % 7)) * MS });
  }
  return { xruns, events };
}

/** Peer: for each xrun, scan every event for the nearest unmatched one before it. */
function allPairs(xruns: { monotonicNs: number }[], events: { time: number }[]): number {
  const used = new Set<number>();
  let matched = 0;
  for (const x of xruns) {
    let best = -1;
    let bestLag = Infinity;
    events.forEach((e, i) => {
      const lag = (x.monotonicNs - e.time * 1e9) / 1e6;
      if (lag >= 0 && lag <= 60 && lag < bestLag && !used.has(i)) {
        best = i;
        bestLag = lag;
      }
    });
    if (best >= 0) {
      used.add(best);
      matched++;
    }
  }
  return matched;
}

function time(fn: () => number, rounds: number): { ms: number; result: number } {
  let result = 0;
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) result = fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6 / rounds, result };
}

for (const minutes of [1, 10, 30]) {
  const n = 2400 * minutes;
  const { xruns, events } = fixture(n);
  const ours = time(
    () =>
      correlateXruns({
        xruns,
        events,
        pcm: 'pcmC0D0p',
        offsetNs: 0,
        sessionStartNs: START,
        bufferMs: 2.67,
      }).pairs.length,
    5,
  );
  const peer = time(() => allPairs(xruns, events), 1);
  console.log(
    `${minutes} min (${n} events, ${xruns.length} xruns): correlateXruns ${ours.ms.toFixed(1)} ms, all-pairs peer ${peer.ms.toFixed(0)} ms, ratio ${(peer.ms / ours.ms).toFixed(0)}x; matched ${ours.result} vs ${peer.result}`,
  );
}
