// A tiny element builder for the report's HTML and hand-written SVG: attribute values and
// text are escaped here, numbers are rounded so the file stays small and diffs readable.
import { escapeHtml } from './escape.js';

export type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue>;

/** Rounds coordinates to 0.01 px: finer detail is invisible and only bloats the file. */
export function num(n: number): string {
  if (!Number.isFinite(n)) return '0';
  return String(Math.round(n * 100) / 100);
}

function attrText(attrs: Attrs): string {
  let out = '';
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (v === true) out += ` ${k}`;
    else out += ` ${k}="${typeof v === 'number' ? num(v) : escapeHtml(v)}"`;
  }
  return out;
}

// HTML void elements take no closing tag; every other element gets one, because `<div/>`
// is an *opening* tag to an HTML parser (only inline SVG honours the self-closing slash).
const VOID_ELEMENTS = new Set(['meta', 'br', 'hr', 'img', 'input', 'link', 'col', 'wbr']);

/** Builds one element (HTML or SVG); `children` are already-built markup (see `text()`). */
export function el(tag: string, attrs: Attrs = {}, ...children: string[]): string {
  if (VOID_ELEMENTS.has(tag)) return `<${tag}${attrText(attrs)}>`;
  return `<${tag}${attrText(attrs)}>${children.join('')}</${tag}>`;
}

/** Escaped text content. */
export function text(value: string | number): string {
  return escapeHtml(String(value));
}

/** A hover tooltip: SVG's own `<title>` child, no script needed. */
export function tooltip(value: string): string {
  return el('title', {}, text(value));
}
