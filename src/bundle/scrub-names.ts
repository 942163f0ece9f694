// The scrubber's rules for identifiers it was told (pure): this machine's host names, the
// people's login names, and exact values read from the machine (serial numbers, UUIDs).
// Compiled once into a few regular expressions, so a whole kernel log is scanned once per
// class, not once per name.
//
// The rule for user names (decided here, tested in scrub.test.ts):
// - A *distinctive* name (3+ characters, not a word that kernel or audio text uses itself)
//   is replaced wherever it is not glued to other letters or an underscore, case-insensitive:
//   `ardour-alice`, `alice.smith`, `alice2`, `ALICE`, `/srv/alice/` all lose it; `malice`,
//   `aliceblue` and a kernel symbol such as `alice_probe` keep theirs, because kernel
//   identifiers join words with "_" (stack frames must survive scrubbing unchanged).
// - A name that kernel text uses as a word (`snd`, `irq`, `pcm`, `mark`, `jack`, `max`…) or
//   one shorter than 3 characters (`pi`) cannot be told apart from that text; it is replaced
//   only where the text says it is a user: home folders, `user=NAME`, `USER=NAME`,
//   `uid=1000(NAME)`, `for user NAME`, and e-mail addresses (both generic rules).
// Host names follow the same split; a fully qualified name also yields its short name and
// its domain (a syslog line says `studio-pc`, the machine calls itself `studio-pc.lan`).
import { onAnchoredLines } from './scrub-patterns.js';
import type { ScrubRule } from './scrub-patterns.js';

/** Names and values known to identify this machine or person (gathered by scrub-known.ts). */
export interface ScrubKnown {
  hostnames: string[];
  users: string[];
  /** Exact values read from the machine: USB/NVMe/DMI serials, SD card CIDs, UUIDs, machine-id. */
  identifiers?: string[];
}

// Words that kernel, ALSA and desktop text use on their own: a login name equal to one of
// them is only replaced in explicit user contexts (see the file comment).
const TEXT_WORDS = new Set(
  (
    'root admin user users guest test demo kernel linux audio sound snd pcm irq usb hda dma cpu ' +
    'mem alsa jack pulse pipewire video input power daemon bin sys sync games man mail news ' +
    'proxy backup list nobody systemd debian ubuntu fedora arch max min mark page lock task work ' +
    'data disk time timer core card dev device port host home media mount block write read ' +
    'sched node text info warn error event file init boot main tty net ext fat nvme mmc pci acpi ' +
    'intel amd arm apple dell asus acer lenovo hp rtc hub bus fan key mouse dummy loop null ' +
    'zero free open close start stop run call trace stack frame dump code cache buffer queue ' +
    'thread worker kworker swapper idle rcu ksoftirqd migration watchdog audit cron sshd dbus ' +
    'polkitd avahi rtkit colord gdm lightdm sddm www http https ftp git svn build ci runner ' +
    'docker podman lxc kvm qemu xen vm guest live liveuser pi ubuntu-user'
  ).split(' '),
);

// Names distributions give every machine: they identify nobody, and "Debian" is part of
// `uname -v`, which a kernel developer needs intact.
const GENERIC_HOSTNAMES = new Set(
  (
    'localhost localhost.localdomain debian ubuntu raspberrypi fedora archlinux arch kali ' +
    'linux pop-os mint manjaro opensuse suse centos rocky alma endeavouros nixos gentoo void ' +
    'alpine armbian dietpi osmc libreelec steamdeck unknown none (none)'
  ).split(' '),
);

/** Whether a name can be matched inside other text without false positives (the rule above). */
export function isDistinctiveName(name: string): boolean {
  return name.length >= 3 && !TEXT_WORDS.has(name.toLowerCase());
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const byLengthDesc = (a: string, b: string): number => b.length - a.length;
const unique = (xs: Iterable<string>): string[] => [...new Set(xs)];

/** The host names to replace: given names, their short forms and domains, minus generic ones. */
export function expandHostnames(hostnames: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of hostnames) {
    const h = raw.trim().replace(/\.$/, '').toLowerCase();
    if (h.length < 2 || GENERIC_HOSTNAMES.has(h)) continue;
    out.push(h);
    const labels = h.split('.');
    if (labels.length >= 2) {
      const short = labels[0]!;
      if (short.length >= 2 && !GENERIC_HOSTNAMES.has(short)) out.push(short);
      // The domain of box.example.org is example.org; of box.lan only "lan" (not identifying).
      if (labels.length >= 3) out.push(labels.slice(1).join('.'));
    }
  }
  return unique(out);
}

// Values that tools print when a field is empty: never identifiers.
const PLACEHOLDER_VALUES = new Set(
  [
    'default string',
    'to be filled by o.e.m.',
    'not specified',
    'not applicable',
    'system serial number',
    'chassis serial number',
    'base board serial number',
    'none',
    'n/a',
    'unknown',
    '0123456789',
    '123456789',
    '1234567890',
  ].map((s) => s.toLowerCase()),
);

const PCI_ADDRESS_RE = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

/** Keeps the exact identifiers worth replacing: long enough, not filler, not one repeated digit. */
export function usableIdentifiers(values: readonly string[]): string[] {
  return unique(
    values
      .map((v) => v.trim())
      .filter(
        (v) =>
          v.length >= 4 &&
          !PLACEHOLDER_VALUES.has(v.toLowerCase()) &&
          !/^(.)\1*$/.test(v.replace(/[-\s]/g, '')) &&
          /[0-9]/.test(v) &&
          !/^\d{1,4}$/.test(v) &&
          // A USB root hub's "serial" is its PCI address: kernel text needs those intact.
          !PCI_ADDRESS_RE.test(v),
      ),
  );
}

const USER_CONTEXT_ANCHOR_RE = /user|login|owner|LOGNAME|uid=/gi;
const WORD_EDGE_AFTER = '(?![\\p{L}_])';
const NAME_EDGE_AFTER = '(?![\\p{L}\\p{N}_])';
const LETTER_RE = /\p{L}/u;
const DIGIT_RE = /\p{N}/u;

/**
 * Whether the character before `at` leaves a name standing on its own. Checked in code, not
 * in a leading lookbehind: a pattern that starts with its literal names is scanned ten times
 * faster. A JSON string escape (`\n`, `\t`…) ends in a letter but is a separator: JSON
 * quoted in text (an HTML report, a pasted event line) must not hide "\nalice" behind its "n".
 */
function edgeBefore(s: string, at: number, digitsGlue: boolean): boolean {
  if (at === 0) return true;
  const c = s[at - 1]!;
  const glued = c === '_' || LETTER_RE.test(c) || (digitsGlue && DIGIT_RE.test(c));
  if (!glued) return true;
  return 'nrtbf'.includes(c) && s[at - 2] === '\\' && s[at - 3] !== '\\';
}

function alternation(names: readonly string[]): string {
  return [...names].sort(byLengthDesc).map(escapeRe).join('|');
}

/** Compiles the rules for the known names and values (run after the generic rules). */
export function compileNameRules(known: ScrubKnown): ScrubRule[] {
  const rules: ScrubRule[] = [];

  const ids = usableIdentifiers(known.identifiers ?? []);
  if (ids.length > 0) {
    // Long values (8+) are replaced anywhere: the kernel glues an NVMe serial between the
    // vendor id and the model in a made-up NQN. Short ones need edges.
    const long = ids.filter((v) => v.length >= 8);
    const short = ids.filter((v) => v.length < 8);
    const parts: string[] = [];
    if (long.length) parts.push(`(?:${alternation(long)})`);
    if (short.length) parts.push(`(?<![A-Za-z0-9])(?:${alternation(short)})(?![A-Za-z0-9])`);
    // Serials and UUIDs are ASCII: without the unicode flag the literal scan is faster.
    const ascii = ids.every((v) => /^[\x20-\x7e]+$/.test(v));
    const re = new RegExp(parts.join('|'), ascii ? 'gi' : 'giu');
    rules.push((s, ph) => s.replace(re, ph.serial));
  }

  const hosts = expandHostnames(known.hostnames);
  const distinctiveHosts = hosts.filter(isDistinctiveName);
  if (distinctiveHosts.length > 0) {
    const re = new RegExp(`(?:${alternation(distinctiveHosts)})${NAME_EDGE_AFTER}`, 'giu');
    rules.push((s, ph) =>
      s.replace(re, (m: string, at: number) => (edgeBefore(s, at, true) ? ph.host : m)),
    );
  }

  const users = unique(
    known.users.map((u) => u.trim()).filter((u) => u.length >= 2 && u !== 'root'),
  );
  const distinctiveUsers = users.filter(isDistinctiveName);
  if (distinctiveUsers.length > 0) {
    const re = new RegExp(`(?:${alternation(distinctiveUsers)})${WORD_EDGE_AFTER}`, 'giu');
    rules.push((s, ph) =>
      s.replace(re, (m: string, at: number) => (edgeBefore(s, at, false) ? ph.user : m)),
    );
  }
  if (users.length > 0) {
    // Explicit contexts, for every name (the only place a name like "snd" is replaced).
    const re = new RegExp(
      `(\\b(?:user(?:name)?|login|owner|for user|LOGNAME|SUDO_USER)[ \\t]*[=: ][ \\t]*|\\buid=\\d+\\()(?:${alternation(users)})${NAME_EDGE_AFTER}`,
      'giu',
    );
    rules.push((s, ph) =>
      onAnchoredLines(s, USER_CONTEXT_ANCHOR_RE, (l) => l.replace(re, `$1${ph.user}`)),
    );
  }
  return rules;
}
