import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineId, machineIdPath } from './machine-id.js';

test('created once under XDG_STATE_HOME, private, then stable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-mid-'));
  try {
    const env = { XDG_STATE_HOME: dir };
    const a = machineId(env);
    assert.match(a, /^[0-9a-f]{32}$/);
    assert.equal(machineId(env), a);
    const p = machineIdPath(env);
    assert.equal(p, join(dir, 'xrunhunt', 'machine-id'));
    assert.equal(readFileSync(p, 'utf8'), `${a}\n`);
    assert.equal(statSync(p).mode & 0o777, 0o600);
    assert.notEqual(
      machineId({ XDG_STATE_HOME: join(dir, 'other') }),
      a,
      'another install, another id',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('falls back to ~/.local/state; a damaged id file is replaced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-mid-'));
  try {
    const env = { HOME: dir };
    assert.equal(machineIdPath(env), join(dir, '.local', 'state', 'xrunhunt', 'machine-id'));
    const a = machineId(env);
    writeFileSync(machineIdPath(env), 'garbage\n');
    const b = machineId(env);
    assert.match(b, /^[0-9a-f]{32}$/);
    assert.notEqual(b, a);
    assert.equal(machineId(env), b);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
