// Pure: kernel releases in version order ("5.10.0-33-amd64" < "6.1.0-18-amd64" <
// "6.1.0-28-amd64" < "6.12.1-arch1-1"), which string order gets wrong (6.12 < 6.6). The trend
// view and "appears in / disappears in" on the signature page depend on this order.

const TOKEN = /\d+|\D+/g;

/** Compares two kernel releases by their numeric parts, then text; a total order. */
export function compareKernelReleases(a: string, b: string): number {
  const ta = a.match(TOKEN) ?? [];
  const tb = b.match(TOKEN) ?? [];
  for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
    const x = ta[i]!;
    const y = tb[i]!;
    const nx = /^\d/.test(x);
    const ny = /^\d/.test(y);
    if (nx && ny) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d;
    } else if (nx !== ny) {
      // A number sorts before text at the same place: "6.1" < "6.1-rc1" stays close by.
      return nx ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  if (ta.length !== tb.length) return ta.length - tb.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
