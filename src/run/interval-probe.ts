// Periodic work of a run as a probe: starts with the run stage, stops at collect (or at
// restore when the run failed). The watch's stream polling, load sampling and live ranking
// are three of these.
import type { RunContext, RunProbe } from './probe.js';

/** A probe that calls `tick` every `everyMs` during the run stage (`atStart` once first). */
export function createIntervalProbe(
  name: string,
  everyMs: number,
  tick: (ctx: RunContext) => void,
  options: { atStart?: (ctx: RunContext) => void } = {},
): RunProbe {
  let timer: NodeJS.Timeout | null = null;
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    name,
    run(ctx) {
      options.atStart?.(ctx);
      timer = setInterval(() => tick(ctx), everyMs);
    },
    collect: stop,
    restore: stop,
  };
}
