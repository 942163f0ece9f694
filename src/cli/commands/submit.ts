// `xrunhunt submit URL BUNDLE`: send one bundle to a collection server (`xrunhunt serve`),
// after checking it locally so a damaged file is caught before it travels.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { UsageError, XrunhuntError, errnoCode } from '../../errors.js';
import { MAX_BUNDLE_BYTES, isGzip, parseBundleBytes } from '../../bundle/read.js';
import { inspectInputPath, requireRegularFileWithin } from '../../io/input-path.js';
import { postBundle } from '../../net/post-bundle.js';
import { describeSubmitAnswer } from '../../net/submit-answer.js';
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { readTokenFile } from './serve.js';

/** Longest whole exchange with the server (ms): uploads are small; a hung server must not hang us. */
const SUBMIT_TIMEOUT_MS = 60_000;

export default defineCommand({
  name: 'submit',
  summary: 'send one bundle to a collection server (xrunhunt serve)',
  usage: 'submit URL BUNDLE [options]',
  description: `
Checks the bundle locally (format, version), then POSTs it as is (JSON or gzip) and prints
the server's answer. Exit code 0 when the server accepted it or already had it, 1 otherwise.
Follows at most 3 redirects that keep the method (307/308) and the scheme; the token is sent
only to the origin named on the command line. Reads at most 64 KiB of the answer (also after
gzip) within 60 s; the server's text is shown with control characters escaped.`,
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
      throw new UsageError(
        `invalid URL "${quoteUntrusted(url)}": expected e.g. http://127.0.0.1:8734/`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new UsageError(`invalid URL "${quoteUntrusted(url)}": expected http:// or https://`);
    }
    const path = resolve(io.cwd, file);
    // A FIFO or /dev/zero named as the bundle must not hang or exhaust submit.
    requireRegularFileWithin(inspectInputPath(path), MAX_BUNDLE_BYTES, 'a bundle');
    let body: Buffer;
    try {
      body = readFileSync(path);
    } catch (err) {
      throw new XrunhuntError(
        errnoCode(err) === 'ENOENT' ? 'not-found' : 'input',
        `bundle ${quoteUntrusted(file)}: ${(err as Error).message}`,
      );
    }
    const bundle = parseBundleBytes(body, file);
    if (!bundle.scrubbed) {
      io.stderr.write(
        `xrunhunt: warning: ${quoteUntrusted(file)} is not scrubbed (written with --no-scrub): it may contain host and user names\n`,
      );
    }
    const token = values.token ? readTokenFile(resolve(io.cwd, values.token)) : null;
    const reply = await postBundle({
      url: parsed,
      body,
      contentType: isGzip(body) ? 'application/gzip' : 'application/json',
      token,
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(SUBMIT_TIMEOUT_MS)]),
    });
    const retryAfter = reply.headers['retry-after'];
    const answer = describeSubmitAnswer({
      status: reply.status,
      text: reply.text,
      bodyProblem: reply.bodyProblem,
      retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
      tokenWithheld: reply.tokenWithheld,
      redirectedTo: reply.url.origin === parsed.origin ? null : reply.url.origin,
    });
    if (values.json) writeJson(io.stdout, answer.json);
    else if (answer.ok) io.stdout.write(answer.line);
    else io.stderr.write(answer.line);
    return answer.ok ? 0 : 1;
  },
});
