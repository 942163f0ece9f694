// Which "client" a connection belongs to, for per-client limits. An IPv4 address is one
// client; an IPv4-mapped IPv6 address is that IPv4 client; for other IPv6 addresses the /64
// prefix is the client, because one host is routinely given a whole /64 and could otherwise
// take a fresh address for every connection.

/** The per-client limit key of a remote address ("unknown" when the socket has none). */
export function clientKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const groups = expandIpv6(address);
  return groups === null ? address.toLowerCase() : `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped), or null when malformed. */
function expandIpv6(address: string): string[] | null {
  const bare = address.split('%')[0]!.toLowerCase();
  const halves = bare.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  // A trailing dotted quad (::1.2.3.4) counts as two groups.
  const last = (halves.length === 2 ? tail : head).at(-1);
  if (last !== undefined && last.includes('.')) {
    const parts = last.split('.').map(Number);
    if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255))) return null;
    const list = halves.length === 2 ? tail : head;
    list.splice(
      -1,
      1,
      ((parts[0]! << 8) | parts[1]!).toString(16),
      ((parts[2]! << 8) | parts[3]!).toString(16),
    );
  }
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => g.replace(/^0+(?=.)/, ''));
}

/** Canonical text of an IP address for comparison (IPv4-mapped → IPv4, IPv6 expanded). */
function canonicalIp(address: string): string | null {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  const a = mapped ? mapped[1]! : address;
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(a)) {
    return a.split('.').every((p) => Number(p) <= 255) ? a.split('.').map(Number).join('.') : null;
  }
  const groups = a.includes(':') ? expandIpv6(a) : null;
  return groups === null ? null : groups.join(':');
}

/**
 * Parses --trust-proxy ADDR[,ADDR]: the reverse proxies whose X-Forwarded-For is believed.
 * Throws a message naming the bad entry (the caller makes it a usage error).
 */
export function parseTrustedProxies(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    const ip = entry === '' ? null : canonicalIp(entry.replace(/^\[(.*)\]$/, '$1'));
    if (ip === null) {
      throw new Error(
        `"${entry}" is not an IP address (expected e.g. 127.0.0.1 or ::1, comma-separated)`,
      );
    }
    out.add(ip);
  }
  return out;
}

/**
 * The client address a request is keyed on. Exists because behind a reverse proxy every
 * request comes from the proxy: only when the peer is a trusted proxy is X-Forwarded-For
 * read, right to left, skipping trusted proxies; the first other address is the client (the
 * left part is whatever the client chose to send and is never believed).
 */
export function forwardedClient(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: ReadonlySet<string>,
): string | undefined {
  if (peer === undefined || trusted.size === 0) return peer;
  const peerIp = canonicalIp(peer);
  if (peerIp === null || !trusted.has(peerIp)) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
  const hops = header
    .split(',')
    .map((h) => h.trim().replace(/^\[(.*)\](?::\d+)?$/, '$1'))
    .filter((h) => h !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const ip = canonicalIp(hops[i]!);
    if (ip === null) return peer; // a malformed hop: do not guess, key on the proxy
    if (!trusted.has(ip)) return hops[i]!;
  }
  return peer;
}
