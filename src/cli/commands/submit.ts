// `xrunhunt submit URL BUNDLE`: send one bundle to a collection server (`xrunhunt serve`),
// after checking it locally so a damaged file is caught before it travels.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { UsageError, XrunhuntError, errnoCode } from '../../errors.js';
import { isGzip, parseBundleBytes } from '../../bundle/read.js';
import { readTokenFile } from './serve.js';

/** How long to wait for the server (ms): uploads are small; a hung server should not hang us. */
const SUBMIT_TIMEOUT_MS = 60_000;

export default defineCommand({
  name: 'submit',
  summary: 'send one bundle to a collection server (xrunhunt serve)',
  usage: 'submit URL BUNDLE [options]',
  description: `
Checks the bundle locally (format, version), then POSTs it as is (JSON or gzip) and prints
the server's answer. Exit code 0 when the server accepted it or already had it, 1 otherwise.`,
  examples: [
    'xrunhunt submit http://127.0.0.1:8734/ xrunhunt-2026-11-29T18-00/bundle.json.gz',
    'xrunhunt submit https://xruns.example.org/ bundle.json.gz --token ~/.config/xrunhunt/token',
  ],
  positionals: true,
  options: {
    token: {
      type: 'string',
      valueName: 'FILE',
      description: 'send the token in FILE as "Authorization: Bearer"',
    },
    json: { type: 'boolean', description: "print the server's answer as one JSON document" },
  },
  async run(ctx) {
    const { io, values } = ctx;
    const [url, file, ...extra] = ctx.positionals;
    if (!url || !file || extra.length) {
      throw new UsageError(
        'submit needs exactly a URL and a bundle file (see: xrunhunt submit --help)',
      );
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`invalid URL "${url}": expected e.g. http://127.0.0.1:8734/`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new UsageError(`invalid URL "${url}": expected http:// or https://`);
    }
    const path = resolve(io.cwd, file);
    let body: Buffer;
    try {
      body = readFileSync(path);
    } catch (err) {
      throw new XrunhuntError(
        errnoCode(err) === 'ENOENT' ? 'not-found' : 'input',
        `bundle ${file}: ${(err as Error).message}`,
      );
    }
    const bundle = parseBundleBytes(body, file);
    if (!bundle.scrubbed) {
      io.stderr.write(
        `xrunhunt: warning: ${file} is not scrubbed (written with --no-scrub): it may contain host and user names\n`,
      );
    }
    const token = values.token ? readTokenFile(resolve(io.cwd, values.token)) : null;
    const timeout = AbortSignal.timeout(SUBMIT_TIMEOUT_MS);
    let res: Response;
    try {
      res = await fetch(parsed, {
        method: 'POST',
        body,
        headers: {
          'content-type': isGzip(body) ? 'application/gzip' : 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        signal: AbortSignal.any([ctx.signal, timeout]),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new XrunhuntError(
        'resource',
        `cannot reach ${parsed.origin}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        {
          hint: 'check the URL and that "xrunhunt serve" is running there',
        },
      );
    }
    const text = await res.text();
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      answer = { error: text.trim().slice(0, 500) };
    }
    const ok = res.status === 200 || res.status === 201;
    if (values.json) writeJson(io.stdout, { status: res.status, ...answer });
    else if (ok)
      io.stdout.write(
        `${res.status === 201 ? 'accepted' : 'already there'}: ${String(answer['id'] ?? '')}\n`,
      );
    else {
      const retry = res.headers.get('retry-after');
      io.stderr.write(
        `xrunhunt: error: the server refused the bundle (HTTP ${res.status}): ${String(answer['error'] ?? text)}${retry ? ` (retry in ${retry} s)` : ''}\n`,
      );
    }
    return ok ? 0 : 1;
  },
});
