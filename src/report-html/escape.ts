// Everything a report shows comes from untrusted input (kernel logs pasted from mail,
// bundles from strangers' machines). Every text and attribute value goes through here.

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Makes any text safe inside HTML/SVG element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  // C0 controls other than tab/newline are not allowed in XML (inline SVG) and mean nothing
  // in a report; they are shown as U+FFFD so a log with stray bytes cannot break the page.
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!).replace(CONTROL_CHARS, '\ufffd');
}

/** Text for a `<script type="application/json">` block: JSON that cannot close the element. */
export function escapeJsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
