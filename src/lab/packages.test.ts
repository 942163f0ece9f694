import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aptInstallLine, missingPackages } from './packages.js';

test('a package is present only when dpkg says "install ok installed"', () => {
  const out = [
    'bc install ok installed',
    'flex deinstall ok config-files',
    'libasound2:amd64 install ok installed',
  ].join('\n');
  assert.deepEqual(missingPackages(['bc', 'flex', 'bison', 'libasound2'], out), ['flex', 'bison']);
});

test('prints the exact apt-get line', () => {
  assert.equal(
    aptInstallLine(['bc', 'flex']),
    'sudo apt-get install --no-install-recommends -y bc flex',
  );
});
