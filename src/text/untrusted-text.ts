// Text that came from outside (a log line, a bundle's bytes, a server's reply, a file name)
// may hold terminal control sequences: ESC [2J clears the screen, OSC sets the window title,
// a bare CR or LF can forge a line of xrunhunt's own output. Every message that quotes such
// text passes it through here first, so what reaches the terminal is inert and bounded.

/** Default cap on a quoted fragment: enough to recognise the input, not enough to flood. */
export const QUOTE_MAX_CHARS = 200;

// C0 controls (tab included: it can realign a forged table), DEL, C1 controls (U+0080–U+009F:
// 8-bit CSI/OSC on some terminals), and the Unicode line/paragraph separators and bidi
// overrides that can reorder or split what the user reads.
// eslint-disable-next-line no-control-regex
const UNSAFE_RE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(ch: string): string {
  const code = ch.charCodeAt(0);
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Escapes control characters so untrusted text cannot drive the terminal or forge lines. */
export function escapeControlChars(text: string): string {
  return text.replace(UNSAFE_RE, escapeChar);
}

/**
 * An error message or hint as it may reach the terminal: every control character escaped but
 * the line breaks a message is laid out with. The last line of defence behind quoteUntrusted,
 * for the message that quoted a value without it.
 */
export function terminalSafeMessage(text: string): string {
  return text.replace(UNSAFE_RE, (ch) => (ch === '\n' ? ch : escapeChar(ch)));
}

/**
 * Makes untrusted text safe to quote in a one-line message: control characters escaped,
 * cut to `maxChars` (the cut is said with an ellipsis and the original length).
 */
export function quoteUntrusted(text: string, maxChars: number = QUOTE_MAX_CHARS): string {
  const cut = text.length > maxChars ? text.slice(0, maxChars) : text;
  const safe = escapeControlChars(cut);
  return text.length > maxChars ? `${safe}… (${text.length} characters)` : safe;
}

// What JSON.stringify leaves raw although a terminal acts on it: DEL, the C1 controls (U+009B
// is an 8-bit CSI) and the line/paragraph separators. All of them occur only inside strings.

const JSON_RAW_RE = /[\u007f-\u009f\u2028\u2029]/g;

/** JSON text with every terminal-active character left raw by JSON.stringify as a \u escape. */
export function terminalSafeJson(json: string): string {
  return json.replace(JSON_RAW_RE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
