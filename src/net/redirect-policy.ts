// Whether `submit` follows a redirect, decided from values only. An upload is a POST: only
// 307/308 keep the method and body (301/302/303 would turn it into a GET and lose the
// bundle). The scheme never changes (no https → http downgrade, no silent upgrade either),
// hops are capped so a redirect loop ends, and the token goes only to the origin the user
// named: a redirect elsewhere is followed without it.
import { quoteUntrusted } from '../text/untrusted-text.js';

/** Most redirects `submit` follows before giving up (a loop ends here). */
export const MAX_REDIRECTS = 3;

export type RedirectDecision =
  { kind: 'follow'; to: URL; sendToken: boolean } | { kind: 'refuse'; reason: string };

/** Whether an HTTP status is a redirect this client has to decide about. */
export function isRedirectStatus(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/**
 * Decides one redirect. `origin` is the URL the user named (the token's home), `current`
 * the URL that answered, `hopsSoFar` how many redirects were already followed.
 */
export function decideRedirect(
  origin: URL,
  current: URL,
  status: number,
  location: string | undefined,
  hopsSoFar: number,
  maxRedirects: number = MAX_REDIRECTS,
): RedirectDecision {
  if (location === undefined || location.trim() === '') {
    return { kind: 'refuse', reason: `the server answered HTTP ${status} without a Location` };
  }
  const shown = quoteUntrusted(location);
  if (status !== 307 && status !== 308) {
    return {
      kind: 'refuse',
      reason: `the server redirected (HTTP ${status}) to "${shown}", which would turn the upload into a GET; submit to that address directly if you trust it`,
    };
  }
  if (hopsSoFar >= maxRedirects) {
    return {
      kind: 'refuse',
      reason: `more than ${maxRedirects} redirects (last to "${shown}"): a redirect loop or a misconfigured server`,
    };
  }
  let to: URL;
  try {
    to = new URL(location, current);
  } catch {
    return { kind: 'refuse', reason: `the server redirected to an invalid address "${shown}"` };
  }
  if (to.protocol !== current.protocol) {
    return {
      kind: 'refuse',
      reason: `the server redirected from ${current.protocol}// to "${quoteUntrusted(to.href)}": submit does not change scheme on a redirect`,
    };
  }
  if (to.username || to.password) {
    return {
      kind: 'refuse',
      reason: `the server redirected to an address with credentials in it ("${quoteUntrusted(to.origin)}")`,
    };
  }
  return { kind: 'follow', to, sendToken: to.origin === origin.origin };
}
