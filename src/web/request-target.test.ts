import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PATH_CHARS, parseRequestTarget } from './request-target.js';

test('plain paths (and absolute-form targets) reach the router with their query', () => {
  for (const [target, path] of [
    ['/', '/'],
    ['/trend?top=3', '/trend'],
    ['/assets/web.css', '/assets/web.css'],
    ['/api/ranking?kernel=6.1.0-28-amd64&kernel=x', '/api/ranking'],
    ['http://host.example/flame?limit=5', '/flame'],
    ['HTTP://host.example', '/'],
  ] as const) {
    assert.equal(parseRequestTarget(target)?.path, path, target);
  }
  assert.deepEqual(parseRequestTarget('/?kernel=a&kernel=b+c')?.query.getAll('kernel'), [
    'a',
    'b c',
  ]);
});

test('dot segments, encodings, backslashes, NUL, empty segments and long paths are refused', () => {
  for (const target of [
    '/assets/../package.json',
    '/api/%2e%2e/',
    '/assets/./web.css',
    '/./',
    '/..',
    '/%2e',
    '/assets/%252e%252e/etc/passwd',
    '/assets/..%2fweb.css',
    '/assets\\..\\etc\\passwd',
    '/assets/web.css%00',
    '/assets/web.css\u0000',
    '/assets//web.css',
    '//assets/web.css',
    '//[',
    '/assets/',
    '/.git/config',
    '*',
    '/x#frag',
    'http://evil.example/../etc/passwd',
    `/${'a'.repeat(MAX_PATH_CHARS)}`,
  ]) {
    assert.equal(parseRequestTarget(target), null, JSON.stringify(target));
  }
});
