// The web view's answers to hostile requests (issue 30; bench/attack-issue30-web.ts runs the
// full set against the CLI): every target that is not a plain path gets a 400 page, never
// another page or a dropped connection; a query value with control characters is a 400 on
// every page and API (PostgreSQL answered a NUL with a 500); every answer carries the CSP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { openSqliteFleetReader } from '../../src/web/sqlite-fleet-reader.js';
import { buildTestFleet, type TestFleet } from '../../src/web/test-fleet.js';
import { CONTENT_SECURITY_POLICY, startWebServer } from '../../src/web/web-server.js';
import type { FleetReader } from '../../src/web/fleet-reader.js';

/** GET with the target on the wire exactly as given; status 0 when the server hung up. */
function rawGet(base: string, target: string): Promise<{ status: number; text: string }> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const s = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    s.on('connect', () =>
      s.write(`GET ${target} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`, 'latin1'),
    );
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('error', () => undefined);
    s.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}

describe('the web view against hostile requests', () => {
  let fleet: TestFleet;
  let reader: FleetReader;
  let web: Awaited<ReturnType<typeof startWebServer>>;
  const errors: unknown[] = [];

  before(async () => {
    fleet = await buildTestFleet(6, { hostile: true });
    reader = openSqliteFleetReader(fleet.db);
    web = await startWebServer({
      reader,
      host: '127.0.0.1',
      port: 0,
      onError: (err) => errors.push(err),
    });
  });
  after(async () => {
    await web?.close();
    await reader?.close();
    fleet?.remove();
  });

  test('a target that is not a plain path is a 400, even where URL parsing finds a page', async () => {
    for (const target of [
      '/api/%2e%2e/', // was the fleet page (200)
      '/assets/./web.css', // was the stylesheet
      '/trend/../flame', // was the flame page
      '/%2e%2e',
      '/assets/..%2f..%2fpackage.json',
      '/assets\\..\\..\\package.json',
      '/assets/web.css%00',
      '//[', // threw outside the handler: the connection was dropped (status 0)
      `/${'a'.repeat(3000)}`,
    ]) {
      const r = await rawGet(web.url, target);
      assert.equal(r.status, 400, `${target.slice(0, 60)}: ${r.text.slice(0, 200)}`);
      assert.match(r.text, /not a page of this view/);
      assert.match(r.text, new RegExp(`Content-Security-Policy: ${CONTENT_SECURITY_POLICY}`, 'i'));
    }
    assert.equal((await rawGet(web.url, '/assets/web.css')).status, 200);
    assert.equal((await rawGet(web.url, 'http://any.example/trend')).status, 200);
    assert.deepEqual(errors, []);
  });

  test('control characters in any query value are a 400 that says so, pages and API alike', async () => {
    for (const path of [
      '/?kernel=%00',
      '/api/ranking?card=a%00b',
      '/trend?driver=%1B%5B2J',
      '/flame?sig=%00',
      '/signature?sig=%00',
      '/api/signature?sig=x%7F',
      '/?limit=5&x%00=1',
    ]) {
      const r = await fetch(new URL(path, web.url));
      assert.equal(r.status, 400, path);
      assert.match(await r.text(), /text without control characters/, path);
    }
    const long = await fetch(new URL(`/signature?sig=${'s'.repeat(4097)}`, web.url));
    assert.equal(long.status, 400);
    assert.match(await long.text(), /at most 4096 characters/);
    assert.deepEqual(errors, []);
  });
});
