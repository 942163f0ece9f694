// The headers every HTTP answer of ours carries, the web view's pages and assets and the
// receiver's JSON alike (with `serve --web` they share one origin, so an answer without them
// is a page of that origin without a policy): a Content-Security-Policy that allows only this
// origin's stylesheet, script and images and no inline code, nosniff, no framing, no referrer.

/** The policy on every answer: only this origin's stylesheet and script, no inline code. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The security headers, for every writeHead (the web view and the receiver). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
