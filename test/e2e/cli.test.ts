import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';

test('--help lists the commands and exits 0', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Usage: xrunhunt <command>/);
});

test('an unknown command is a usage error with a pointer to --help, no stack trace', async () => {
  const r = await runCli(['frobnicate']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /unknown command "frobnicate"/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('--version prints the package version', async () => {
  const r = await runCli(['--version']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^xrunhunt \d+\.\d+\.\d+\n$/);
});
