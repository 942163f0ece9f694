// The generic identifier rules of the privacy scrubber (pure): patterns that find an
// identifier without being told its value — addresses, serial numbers, UUIDs, e-mail
// addresses, home folders, host names in syslog prefixes. Each rule is one function from
// text to text. No rule may match across a line break (files are scrubbed in batches of
// whole lines), and none may touch what a kernel developer needs: stack frames
// (`func+0x1a/0x30 [mod]`), kernel addresses (`ffffffff81000000`), PCI addresses
// (`0000:00:1f.3`), clock times, kernel versions, the hardware model and firmware version.

/** What each identifier class is replaced by; fixed so the rest of a line still reads naturally. */
export const PLACEHOLDERS = {
  host: '<host>',
  user: '<user>',
  home: '/home/<user>',
  ip: '<ip>',
  mac: '<mac>',
  serial: '<serial>',
  uuid: '<uuid>',
  email: '<email>',
  label: '<label>',
  id: '<id>',
} as const;

export type PlaceholderName = keyof typeof PLACEHOLDERS;
/** Placeholder text by class: plain for text files, entity-escaped for HTML. */
export type Placeholders = Readonly<Record<PlaceholderName, string>>;

/** The placeholders as they must appear inside HTML (a bare `<user>` would be parsed as a tag). */
export const HTML_PLACEHOLDERS: Placeholders = Object.fromEntries(
  Object.entries(PLACEHOLDERS).map(([k, v]) => [k, v.replace(/</g, '&lt;').replace(/>/g, '&gt;')]),
) as unknown as Placeholders;

/** One generic rule: rewrites every occurrence of its identifier class in `s`. */
export type ScrubRule = (s: string, ph: Placeholders) => string;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const H16 = '[0-9a-f]{1,4}';

// An IPv4 address not inside a longer dotted number or word. A trailing "." is allowed
// (end of a sentence), ".<digit>" is not (a fifth component: a version, not an address).
const IPV4_RE = new RegExp(`(?<![\\w.])${IPV4}(?!\\w|\\.\\d)`, 'g');

// IPv6: the full 8-group form, every "::" compressed form, and IPv4-mapped tails. Never
// adjacent to a word character, ":" or "." so that `12:34:56`, `0000:00:1f.3`, an IPv4
// address followed by "::" (the `ip=` boot argument) and `std::foo` stay as they are.
const IPV6_FORMS = [
  `(?:${H16}:){6}${IPV4}`,
  `(?:${H16}:){1,5}:(?:${H16}:){0,4}${IPV4}`,
  `::(?:${H16}:){0,5}${IPV4}`,
  `(?:${H16}:){7}${H16}`,
  `(?:${H16}:){1,7}(?::${H16}){1,7}`,
  `(?:${H16}:){1,7}:`,
  `::(?:${H16}(?::${H16}){0,6})`,
];
// (Anchor: every form has "::" or three inner groups.)
const IPV6_ANCHOR_RE = /::|:[0-9a-f]{1,4}:[0-9a-f]{1,4}:[0-9a-f]{1,4}:/gi;
const IPV6_RE = new RegExp(`(?<![\\w:.])(?:${IPV6_FORMS.join('|')})(?![\\w:]|\\.\\d)`, 'gi');

// Addresses that are the same on every machine say nothing about this one: "any" (0.0.0.0,
// ::), loopback (127.x, ::1), broadcast, and netmasks (255.255.255.0). The nil UUID likewise.
const NON_IDENTIFYING_IPV4_RE = /^(?:0\.0\.0\.0|127\.\d+\.\d+\.\d+|255\.\d+\.\d+\.\d+)$/;
const NON_IDENTIFYING_IPV6_RE = /^(?:::1?|::ffff:127\.\d+\.\d+\.\d+)$/i;

// MAC addresses in all three notations: aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff, aabb.ccdd.eeff.
// Longer runs of colon pairs (an iptables `MAC=` field joining two addresses and a type,
// InfiniBand hardware addresses) are replaced whole.
// (Anchors start with a literal separator: a scan led by a character class is ten times slower.)
const MAC_ANCHOR_RE = /[:-][0-9a-f]{2}[:-][0-9a-f]{2}[:-]/gi;
const CISCO_MAC_ANCHOR_RE = /\.[0-9a-f]{4}\.[0-9a-f]{4}\b/gi;
const MAC_RE =
  /(?<![\w:-])[0-9a-f]{2}([:-])[0-9a-f]{2}(?:\1[0-9a-f]{2}){4,}(?![\w-])|(?<![\w.])[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}(?!\w|\.\w)/gi;

// UUIDs (filesystem, partition, DMI product, LUKS, NVMe namespace ids) in their canonical form.
const UUID_ANCHOR_RE = /-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-/gi;
const UUID_RE =
  /(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])/gi;
// 32 hex digits after the words that name them: an SD/MMC CID, /etc/machine-id (journal
// `_MACHINE_ID=`), a boot id, a DMI UUID without dashes. Not generic: md5 sums and other
// hashes are not identifiers, and the exact values on this machine are known anyway.
const HEX32_KEY_RE =
  /\b(cid|machine[-_ ]?id|_?MACHINE_ID|_?BOOT_ID|(?:product_)?uuid)([ \t]*[:=]?[ \t]*)[0-9a-f]{32}(?![\w-])/gi;
// Kernel command line and fstab: root=UUID=…, resume=PARTUUID=…-02, UUID=1234-ABCD (vfat).
const UUID_ARG_RE = /\b((?:PART)?UUID=)[0-9a-f][0-9a-f-]{3,}/gi;
const LABEL_ARG_RE = /\b((?:PART)?LABEL=)(?:"[^"\n]*"|[^\s,"]+)/g;
const HOSTNAME_ARG_RE = /(\b_HOSTNAME=|\b(?:systemd\.)?hostname=)[^\s,"]+/g;
// systemd writes the host name into the kernel log at boot: `Set hostname to <studio>.`
const SET_HOSTNAME_RE = /(\b(?:Set hostname to|Hostname set to) <)[^<>\n]+(>)/g;
// Predictable interface names made from a MAC address (USB Ethernet): enx001b213a4f9c.
const ENX_RE = /\benx[0-9a-f]{12}\b/gi;

// `ip=<client>:<server>:<gateway>:<netmask>:<hostname>:<device>:<autoconf>` (the kernel's
// ipconfig boot argument); `ip=dhcp` and friends carry nothing and stay.
const IP_ARG_RE = /(?<![\w.-])(ip=)([^\s"]+)/g;

// Serial numbers after the words that introduce them: `SerialNumber: …` (usb core),
// `Serial Number: …`, `serial=…`, `S/N …`, `sn : …` (nvme id-ctrl), `iSerial 3 …` (lsusb).
// The USB core's `SerialNumber=3` is a string-descriptor index, not a serial: values of
// one to three digits stay, and so do words without a digit (`serial console`) and
// driver names with "/" (`Serial: 8250/16550 driver`).
const SERIAL_KEY_RE =
  /\b(serial[ _-]?(?:number|no\.?|num)?|S\/N|sn(?=[ \t]*:)|iSerial[ \t]+\d+)([ \t]*[:=#][ \t]*|[ \t]+)([A-Za-z0-9][A-Za-z0-9._:-]*)(?=[\s,;)\]"'<&]|$)/gim;
// mmc host messages: the card's relative address, and the `mmcblk0: mmc0:0001 NAME` line
// (the address again; NAME is the product name from the CID — the model, kept).
const MMC_ADDRESS_RE = /(\bmmc\d+: new [^\n]*?card(?: on SPI)? at address )[0-9a-f]{4}\b/gi;
const MMCBLK_RE = /(\bmmcblk\d+(?:boot\d|rpmb|gp\d)?: mmc\d+:)[0-9a-f]{4}\b/gi;
// NVMe without a SUBNQN: the kernel makes one from vid, ssvid, the 20-byte serial, the model.
// (Not again after a scrub: the placeholder is shorter than the 20 bytes it replaced.)
const NVME_MADE_NQN_RE =
  /(nqn\.2014\.08\.org\.nvmexpress:[0-9a-f]{8})(?!<serial>|&lt;serial&gt;)[^\n"]{20}/gi;

// E-mail addresses; systemd unit instances (`getty@tty1.service`) look alike and stay.
const EMAIL_RE = /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?![\w-])/gi;
const EMAIL_ANCHOR_RE = /@/g;
const UNIT_SUFFIX_RE =
  /\.(?:service|socket|target|mount|automount|timer|slice|scope|path|device|swap)$/i;

// Home folders: /home/NAME, /Users/NAME, /var/home/NAME, /export/home/NAME, and /root.
const HOME_RE = /\/(?:home|Users)\/[^/\s'"`:,;)\]<>&]+/g;
const ROOT_HOME_RE = /(?<![\w.-])\/root(?=\/|\b|$)/g;
// Removable media mount points are named after the user too: /media/NAME/, /run/media/NAME/.
const MEDIA_RE = /(\/(?:run\/)?media\/)[^/\s'"`:,;)\]<>&]+(?=\/)/g;

// Fully qualified host names: host.domain.tld with a common or private TLD (3+ labels so
// "pcm_lib.c" and "a.out" never qualify). NVMe qualified names (`nqn.2014-08.org…`) stay.
const TLDS =
  'com|org|net|edu|gov|io|de|uk|fr|nl|se|fi|no|it|es|pl|cz|ru|jp|cn|br|ca|au|ch|at|be|dk|local|lan|home|internal|localdomain|corp|intra';
const FQDN_ANCHOR_RE = new RegExp(`\\.(?:${TLDS})\\b`, 'gi');
const FQDN_RE = new RegExp(
  `(?<![\\w.-])(?!nqn\\.)[a-z0-9][a-z0-9-]{0,62}(?:\\.[a-z0-9-]{1,63})+\\.(?:${TLDS})\\b`,
  'gi',
);
// Under a private TLD two labels already name a machine: nas.local, box.lan, pi.home.
const PRIVATE_HOST_RE =
  /(?<![\w.-])[a-z0-9][a-z0-9-]{0,62}\.(?:local|lan|home|internal|localdomain|intra)\b(?![.-]\w)/gi;

// The host field of a syslog or journal line is the machine's name, whichever machine it is:
// `Dec  1 10:15:05 NAME kernel:`, `2026-12-01T10:15:05+0000 NAME kernel:` (month names may be
// localized), optionally behind mail quoting.
const SYSLOG_HOST_RE =
  /^((?:> ?)*(?:(?:\p{L}[\p{L}.]{1,8}|\d{1,2}\p{L}{1,2}) {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?) )(?!<host> |&lt;host&gt; )\S+(?= [^\s:[]+(?:\[\d+\])?:(?: |$))/gmu;

/**
 * Runs `fn` only on the lines that hold an `anchor` match: a cheap literal-led scan decides
 * where the expensive pattern (lookbehinds, many alternatives) needs to look at all.
 */
export function onAnchoredLines(s: string, anchor: RegExp, fn: (line: string) => string): string {
  anchor.lastIndex = 0;
  let m = anchor.exec(s);
  if (m === null) return s;
  let out = '';
  let done = 0;
  while (m !== null) {
    const start = s.lastIndexOf('\n', m.index) + 1;
    const nl = s.indexOf('\n', m.index + m[0].length);
    const end = nl === -1 ? s.length : nl;
    out += s.slice(done, start) + fn(s.slice(start, end));
    done = end;
    if (end >= s.length) break;
    anchor.lastIndex = end;
    m = anchor.exec(s);
  }
  anchor.lastIndex = 0;
  return out + s.slice(done);
}

// A USB root hub reports its PCI address as its serial number: not an identifier.
const PCI_ADDRESS_RE = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;
const hasDigit = (s: string): boolean => /\d/.test(s);

function scrubIpArg(value: string, ph: Placeholders): string {
  if (/^[a-z0-9]+$/i.test(value)) return value; // dhcp, on, off, any, none, bootp, rarp, dhcp6
  const fields = value.split(':');
  return fields
    .map((f, i) =>
      f === '' || f === ph.ip || f === ph.host ? f : i <= 3 ? ph.ip : i === 4 ? ph.host : f,
    )
    .join(':');
}

/** The generic rules in the order they run: specific contexts before the broad patterns. */
export const GENERIC_RULES: readonly ScrubRule[] = [
  // Contexts first: they know which part of a line is the identifier.
  (s, ph) =>
    s.includes('ip=')
      ? s.replace(IP_ARG_RE, (_m, k: string, v: string) => k + scrubIpArg(v, ph))
      : s,
  (s, ph) => (/uuid=/i.test(s) ? s.replace(UUID_ARG_RE, `$1${ph.uuid}`) : s),
  (s, ph) => (s.includes('LABEL=') ? s.replace(LABEL_ARG_RE, `$1${ph.label}`) : s),
  (s, ph) => (/hostname/i.test(s) ? s.replace(HOSTNAME_ARG_RE, `$1${ph.host}`) : s),
  (s, ph) => (/ostname/.test(s) ? s.replace(SET_HOSTNAME_RE, `$1${ph.host}$2`) : s),
  (s, ph) => (s.includes('enx') ? s.replace(ENX_RE, `enx${ph.mac}`) : s),
  (s, ph) =>
    /serial|s\/n|\bsn\b/i.test(s)
      ? s.replace(SERIAL_KEY_RE, (m, k: string, sep: string, v: string) =>
          /^\d{1,3}$/.test(v) || !hasDigit(v) || PCI_ADDRESS_RE.test(v) ? m : k + sep + ph.serial,
        )
      : s,
  (s, ph) =>
    s.includes('mmc')
      ? s.replace(MMC_ADDRESS_RE, `$1${ph.id}`).replace(MMCBLK_RE, `$1${ph.id}`)
      : s,
  (s, ph) => (/cid|machine|_id|uuid/i.test(s) ? s.replace(HEX32_KEY_RE, `$1$2${ph.id}`) : s),
  (s, ph) => (s.includes('nqn.2014.08') ? s.replace(NVME_MADE_NQN_RE, `$1${ph.serial}`) : s),
  (s, ph) =>
    onAnchoredLines(s, EMAIL_ANCHOR_RE, (l) =>
      l.replace(EMAIL_RE, (m) => (UNIT_SUFFIX_RE.test(m) ? m : ph.email)),
    ),
  (s, ph) => {
    if (!s.includes('/')) return s;
    let out = s.replace(HOME_RE, ph.home);
    out = out.replace(ROOT_HOME_RE, ph.home);
    return out.includes('media/') ? out.replace(MEDIA_RE, `$1${ph.user}`) : out;
  },
  (s, ph) =>
    onAnchoredLines(s, UUID_ANCHOR_RE, (l) =>
      l.replace(UUID_RE, (m) => (/^[0-]+$/.test(m) ? m : ph.uuid)),
    ),
  (s, ph) => onAnchoredLines(s, MAC_ANCHOR_RE, (l) => l.replace(MAC_RE, ph.mac)),
  (s, ph) => onAnchoredLines(s, CISCO_MAC_ANCHOR_RE, (l) => l.replace(MAC_RE, ph.mac)),
  (s, ph) =>
    onAnchoredLines(s, IPV6_ANCHOR_RE, (l) =>
      l.replace(IPV6_RE, (m) => (NON_IDENTIFYING_IPV6_RE.test(m) ? m : ph.ip)),
    ),
  (s, ph) =>
    s.includes('.') ? s.replace(IPV4_RE, (m) => (NON_IDENTIFYING_IPV4_RE.test(m) ? m : ph.ip)) : s,
  (s, ph) =>
    onAnchoredLines(s, FQDN_ANCHOR_RE, (l) =>
      l.replace(FQDN_RE, ph.host).replace(PRIVATE_HOST_RE, ph.host),
    ),
  (s, ph) => s.replace(SYSLOG_HOST_RE, `$1${ph.host}`),
];
