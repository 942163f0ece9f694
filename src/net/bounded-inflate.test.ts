import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { gzipDeclaredSize, inflateBounded } from './bounded-inflate.js';

test('inflates within the cap, exactly', async () => {
  const text = Buffer.from('{"hello":"world"}'.repeat(100));
  const r = await inflateBounded(gzipSync(text), text.length);
  assert.ok(r.ok);
  assert.ok(r.ok && r.bytes.equals(text));
});

test('a bomb stops at the cap; truncated and corrupt input are named', async () => {
  const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
  assert.ok(bomb.length < 64 * 1024, `bomb is ${bomb.length} bytes`);
  const big = await inflateBounded(bomb, 64 * 1024);
  assert.deepEqual(big.ok ? 'ok' : big.reason, 'too-large');
  const gz = gzipSync(Buffer.from('x'.repeat(10_000) + Math.random()));
  const cut = await inflateBounded(gz.subarray(0, gz.length - 10), 1 << 20);
  assert.deepEqual(cut.ok ? 'ok' : cut.reason, 'truncated');
  const bad = Buffer.from(gz);
  bad[12] = bad[12]! ^ 0xff;
  bad[13] = bad[13]! ^ 0xff;
  const corrupt = await inflateBounded(bad, 1 << 20);
  assert.notEqual(corrupt.ok ? 'ok' : corrupt.reason, 'ok');
});

test('gzipDeclaredSize reads the ISIZE trailer', () => {
  assert.equal(gzipDeclaredSize(gzipSync(Buffer.alloc(123_456))), 123_456);
  assert.equal(gzipDeclaredSize(Buffer.from([0x1f, 0x8b])), null);
});
