import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientKey, forwardedClient, parseTrustedProxies } from './client-key.js';

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

test('X-Forwarded-For is believed only from a trusted proxy, read right to left', () => {
  const trusted = parseTrustedProxies('127.0.0.1, ::1');
  // A direct client cannot choose its key by sending the header.
  assert.equal(forwardedClient('203.0.113.7', '198.51.100.1', trusted), '203.0.113.7');
  // Behind the proxy: the address the proxy appended (the right-most untrusted hop).
  assert.equal(forwardedClient('::ffff:127.0.0.1', '198.51.100.9', trusted), '198.51.100.9');
  assert.equal(forwardedClient('127.0.0.1', 'forged, 198.51.100.9', trusted), '198.51.100.9');
  assert.equal(forwardedClient('::1', '198.51.100.9, 127.0.0.1', trusted), '198.51.100.9');
  assert.equal(forwardedClient('127.0.0.1', ['2001:db8::5'], trusted), '2001:db8::5');
  // No header, only proxies, or a malformed hop: keyed on the proxy itself.
  assert.equal(forwardedClient('127.0.0.1', undefined, trusted), '127.0.0.1');
  assert.equal(forwardedClient('127.0.0.1', '127.0.0.1', trusted), '127.0.0.1');
  assert.equal(forwardedClient('127.0.0.1', '198.51.100.9, not-an-ip', trusted), '127.0.0.1');
  // Without --trust-proxy nothing changes.
  assert.equal(forwardedClient('127.0.0.1', '198.51.100.9', new Set()), '127.0.0.1');
});

test('--trust-proxy names addresses only', () => {
  assert.deepEqual([...parseTrustedProxies('10.0.0.1,[::1]')], ['10.0.0.1', '0:0:0:0:0:0:0:1']);
  assert.throws(
    () => parseTrustedProxies('10.0.0.1,proxy.example'),
    /"proxy.example" is not an IP address/,
  );
  assert.throws(() => parseTrustedProxies('300.1.1.1'), /not an IP address/);
});
