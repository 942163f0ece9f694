// Pure: the request target as the web view's router may see it. The view serves a fixed set
// of paths (its pages, /api/…, and /assets/… from a map, never from disk), so anything but a
// plain path is refused before routing, whatever URL parsing would make of it: dot segments
// (also percent-encoded: the URL parser resolves /api/%2e%2e/ to another page), backslashes
// (which it reads as slashes), empty segments, percent escapes, NUL and other controls, very
// long paths, and targets it cannot parse at all (`//[` threw outside the handler and dropped
// the connection). The query string is left to the parameter parsers (web-query.ts).

/** Longest path accepted (the longest real one is a few dozen characters). */
export const MAX_PATH_CHARS = 256;

// A segment starts with a letter, digit, "_" or "-": no ".", "..", or hidden names.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
// Absolute-form (RFC 9112 3.2.2: a server must accept it): only its path counts.
const ABSOLUTE_FORM = /^https?:\/\/[^/?#\\]*(?=\/|\?|$)/i;

/** What the router is given: a checked path and the raw query (parsed by web-query.ts). */
export interface RequestTarget {
  path: string;
  query: URLSearchParams;
}

/** The path and query of a request target, or null when the path is not a plain one. */
export function parseRequestTarget(target: string): RequestTarget | null {
  const t = target.replace(ABSOLUTE_FORM, '') || '/';
  const q = t.indexOf('?');
  const path = q === -1 ? t : t.slice(0, q);
  if (path.length > MAX_PATH_CHARS || !path.startsWith('/') || t.includes('#')) return null;
  if (
    path !== '/' &&
    !path
      .slice(1)
      .split('/')
      .every((s) => SEGMENT.test(s))
  )
    return null;
  return { path, query: new URLSearchParams(q === -1 ? '' : t.slice(q + 1)) };
}
