import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareKernelReleases } from './kernel-order.js';

test('kernel releases sort by version, not by string', () => {
  const list = [
    '6.12.1-arch1-1',
    '6.6.63-1-lts',
    '6.1.0-28-amd64',
    '5.10.0-33-amd64',
    '6.1.0-18-amd64',
    '6.12.5-rt5',
    '6.11.10-200.fc40.x86_64',
  ];
  assert.deepEqual([...list].sort(compareKernelReleases), [
    '5.10.0-33-amd64',
    '6.1.0-18-amd64',
    '6.1.0-28-amd64',
    '6.6.63-1-lts',
    '6.11.10-200.fc40.x86_64',
    '6.12.1-arch1-1',
    '6.12.5-rt5',
  ]);
});

test('the order is total and antisymmetric, equal only for equal strings', () => {
  assert.equal(compareKernelReleases('6.1', '6.1'), 0);
  assert.ok(compareKernelReleases('6.1', '6.1.0') < 0);
  assert.ok(compareKernelReleases('6.01', '6.1') !== 0);
  assert.equal(
    Math.sign(compareKernelReleases('6.1-rc1', '6.1.0')),
    -Math.sign(compareKernelReleases('6.1.0', '6.1-rc1')),
  );
});
