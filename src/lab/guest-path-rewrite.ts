// The guest prints paths as it sees them: a session inside writes its bundle under the guest's
// work folder (/run/xrunhunt-results/xrunhunt-…/bundle.json.gz), which does not exist on the
// host. The lab copies that folder to the host's results folder, so every mention of the guest
// folder in the streamed output is rewritten to the host's copy as it passes, line by line
// (a path split across two reads is still one path).

/** A streaming rewriter: feed it chunks, then flush what is left at the end. */
export interface PathRewriter {
  push(text: string): string;
  flush(): string;
}

// A host folder whose name would need escaping inside the guest's JSON or shell-quoted output
// is not substituted: a wrong path is better than a broken document.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPING = /["\\\u0000-\u001f\u007f]/;

/** Rewrites `from` (a guest folder) to `to` (its host copy) in whole lines of streamed text. */
export function guestPathRewriter(from: string, to: string): PathRewriter {
  if (NEEDS_ESCAPING.test(to)) return { push: (t) => t, flush: () => '' };
  const prefix = from.endsWith('/') ? from.slice(0, -1) : from;
  const target = to.endsWith('/') ? to.slice(0, -1) : to;
  // The guest folder as a whole path component: /run/xrunhunt-results, …-results/x, not …-resultsX.
  const re = new RegExp(
    `(?<![\\w./-])${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?=[/\\s"'),:;]|$)`,
    'gm',
  );
  let pending = '';
  const rewrite = (t: string): string => t.replace(re, target);
  return {
    push(text) {
      pending += text;
      const cut = Math.max(pending.lastIndexOf('\n'), pending.lastIndexOf('\r')) + 1;
      if (cut === 0) {
        // One very long line: pass it on rather than hold it (keep a path's length back).
        if (pending.length <= 64 * 1024) return '';
        const out = pending.slice(0, pending.length - prefix.length);
        pending = pending.slice(out.length);
        return rewrite(out);
      }
      const out = pending.slice(0, cut);
      pending = pending.slice(cut);
      return rewrite(out);
    },
    flush() {
      const out = rewrite(pending);
      pending = '';
      return out;
    },
  };
}
