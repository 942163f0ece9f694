import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideRedirect, isRedirectStatus } from './redirect-policy.js';

const origin = new URL('https://xruns.example.org/');

test('307/308 to the same origin are followed with the token', () => {
  for (const status of [307, 308]) {
    const d = decideRedirect(origin, origin, status, '/bundles', 0);
    assert.equal(d.kind, 'follow');
    assert.ok(d.kind === 'follow' && d.to.href === 'https://xruns.example.org/bundles');
    assert.ok(d.kind === 'follow' && d.sendToken);
  }
});

test('a redirect to another origin is followed without the token (port counts)', () => {
  for (const loc of ['https://other.example.org/', 'https://xruns.example.org:8443/']) {
    const d = decideRedirect(origin, origin, 307, loc, 0);
    assert.equal(d.kind, 'follow', loc);
    assert.ok(d.kind === 'follow' && !d.sendToken, loc);
  }
});

test('a scheme change, a GET-turning redirect, a loop, credentials and junk are refused', () => {
  const cases: [number, string | undefined, number, RegExp][] = [
    [307, 'http://xruns.example.org/', 0, /does not change scheme/],
    [302, '/elsewhere', 0, /turn the upload into a GET/],
    [301, '/elsewhere', 0, /turn the upload into a GET/],
    [303, '/elsewhere', 0, /turn the upload into a GET/],
    [307, '/again', 3, /more than 3 redirects/],
    [307, 'https://u:p@xruns.example.org/', 0, /credentials/],
    [307, undefined, 0, /without a Location/],
    [307, 'https://[bad', 0, /invalid address/],
  ];
  for (const [status, loc, hops, re] of cases) {
    const d = decideRedirect(origin, origin, status, loc, hops);
    assert.equal(d.kind, 'refuse', `${status} ${loc}`);
    assert.match(d.kind === 'refuse' ? d.reason : '', re);
  }
});

test('a hostile Location cannot put control characters into the reason', () => {
  const d = decideRedirect(origin, origin, 302, '/x\u001b[2J\nxrunhunt: accepted: fake', 0);
  assert.equal(d.kind, 'refuse');
  const reason = d.kind === 'refuse' ? d.reason : '';
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(reason, /[\u0000-\u001f]/);
  assert.match(reason, /\\x1b\[2J\\nxrunhunt/);
});

test('isRedirectStatus knows the five redirect codes only', () => {
  assert.deepEqual([300, 301, 302, 303, 304, 307, 308, 200].map(isRedirectStatus), [
    false,
    true,
    true,
    true,
    false,
    true,
    true,
    false,
  ]);
});
