import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientKey } from './client-key.js';

test('IPv4 and IPv4-mapped addresses are one client each', () => {
  assert.equal(clientKey('203.0.113.7'), '203.0.113.7');
  assert.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(clientKey('::FFFF:127.0.0.1'), '127.0.0.1');
  assert.equal(clientKey(undefined), 'unknown');
});

test('IPv6 addresses count per /64, however they are written', () => {
  const a = clientKey('2001:db8:1:2:aaaa::1');
  assert.equal(a, '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), a);
  assert.equal(clientKey('2001:db8:1:2::7%eth0'), a);
  assert.notEqual(clientKey('2001:db8:1:3::1'), a);
  assert.equal(clientKey('::1'), '0:0:0:0::/64');
  assert.equal(clientKey('fe80::1.2.3.4'), 'fe80:0:0:0::/64');
});

test('malformed input still gives a stable key', () => {
  assert.equal(clientKey('1:2:3'), '1:2:3');
  assert.equal(clientKey('1::2::3'), '1::2::3');
});
