// What `submit` tells the user about a server's answer. Everything in the answer (status
// text, error message, id, Retry-After) comes from the server, which may be hostile: each
// piece is checked for its expected shape or quoted through quoteUntrusted, so a reply can
// neither drive the terminal nor forge a line such as "accepted: <id>".
import { quoteUntrusted } from '../text/untrusted-text.js';

/** The parts of a reply the answer is built from (see post-bundle.ts). */
export interface SubmitReply {
  status: number;
  text: string;
  bodyProblem: string | null;
  retryAfter: string | undefined;
  tokenWithheld: boolean;
  /** Origin that gave the answer, when it is not the one the user named (after a redirect). */
  redirectedTo: string | null;
}

export interface SubmitAnswer {
  ok: boolean;
  /** One line for stdout (success) or stderr (refusal), already safe to print. */
  line: string;
  /** The --json document. */
  json: {
    status: number;
    outcome: 'accepted' | 'duplicate' | 'refused';
    id?: string;
    error?: string;
    retryAfter?: string;
    redirectedTo?: string;
  };
}

const HASH_RE = /^[0-9a-f]{64}$/;
const JSON_QUOTE_MAX = 2000;

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Retry-After is delay-seconds or an HTTP date; anything else is quoted, shortly. */
function retryText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  return /^\d{1,9}$/.test(v) ? `${v} s` : quoteUntrusted(v, 40);
}

/** Turns a server's reply into the user's answer: exit status, one safe line, the JSON record. */
export function describeSubmitAnswer(reply: SubmitReply): SubmitAnswer {
  const answer = parseObject(reply.text);
  const rawId = answer?.['id'];
  const id = typeof rawId === 'string' && HASH_RE.test(rawId) ? rawId : undefined;
  const where = reply.redirectedTo ? ` (answered by ${quoteUntrusted(reply.redirectedTo)})` : '';
  const success = reply.status === 200 || reply.status === 201;
  if (success && reply.bodyProblem === null && id !== undefined) {
    const outcome = reply.status === 201 ? 'accepted' : 'duplicate';
    return {
      ok: true,
      line: `${outcome === 'accepted' ? 'accepted' : 'already there'}: ${id}${where}\n`,
      json: {
        status: reply.status,
        outcome,
        id,
        ...(reply.redirectedTo ? { redirectedTo: reply.redirectedTo } : {}),
      },
    };
  }
  let why: string;
  let jsonWhy: string;
  if (reply.bodyProblem !== null) {
    why = reply.bodyProblem;
    jsonWhy = reply.bodyProblem;
  } else if (success) {
    why = 'its answer carries no bundle id (is it an xrunhunt collector?)';
    jsonWhy = why;
  } else {
    const err = answer?.['error'];
    const text = typeof err === 'string' ? err : reply.text.trim();
    why = text === '' ? '(no reason given)' : quoteUntrusted(text, 500);
    jsonWhy = quoteUntrusted(text, JSON_QUOTE_MAX);
  }
  const retry = retryText(reply.retryAfter);
  const tokenNote = reply.tokenWithheld
    ? ' (the token was not sent: the server redirected to another origin)'
    : '';
  const head = success
    ? `the server answered HTTP ${reply.status}${where} but ${why}; the bundle may or may not be stored`
    : `the server refused the bundle (HTTP ${reply.status})${where}: ${why}`;
  return {
    ok: false,
    line: `xrunhunt: error: ${head}${retry ? ` (retry in ${retry})` : ''}${tokenNote}\n`,
    json: {
      status: reply.status,
      outcome: 'refused',
      error: jsonWhy + tokenNote,
      ...(retry ? { retryAfter: retry } : {}),
      ...(reply.redirectedTo ? { redirectedTo: reply.redirectedTo } : {}),
    },
  };
}
