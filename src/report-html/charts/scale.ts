// Axis arithmetic shared by the charts: a linear map from data to pixels and "nice" tick
// values (1, 2, 5 × 10^k) so axes read 0, 20, 40 rather than 0, 17.3, 34.6.

/** Maps a data domain onto a pixel range (the range may run backwards, as y axes do). */
export function linearScale(
  domain: readonly [number, number],
  range: readonly [number, number],
): (v: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0;
  if (span === 0) return () => (r0 + r1) / 2;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/** Picks a step of 1, 2 or 5 × 10^k giving at most `maxTicks` intervals over [0, max]. */
export function niceStep(max: number, maxTicks = 5): number {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  const raw = max / Math.max(1, maxTicks);
  const mag = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

/** Tick values from 0 up to the first nice value ≥ max (the axis end); counts pass minStep 1. */
export function niceTicks(max: number, maxTicks = 5, minStep = 0): number[] {
  const step = Math.max(minStep, niceStep(max, maxTicks));
  const top = Math.max(step, Math.ceil(max / step - 1e-9) * step);
  const ticks: number[] = [];
  for (let i = 0; i * step <= top + step * 1e-9; i++)
    ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

/** Short tick label: 1500 → "1.5k", 0.25 → "0.25". */
export function formatTick(v: number): string {
  const abs = Math.abs(v);
  if (abs >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (abs >= 1e3) return `${Number((v / 1e3).toPrecision(3))}k`;
  return String(Number(v.toPrecision(3)));
}
