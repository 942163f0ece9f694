import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetKallsyms, readKallsyms } from './kallsyms-read.js';

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'xrh-kallsyms-'));
  writeFileSync(join(root, 'modules'), 'snd_pcm 188416 1 - Live 0xffffffffc0600000\n');
  writeFileSync(join(root, 'kallsyms'), 'ffffffffc0601000 t __snd_pcm_xrun\t[snd_pcm]\n');
  return root;
}

test('one read serves while /proc/modules reads the same; a module change, a retry or another tree reads again', () => {
  forgetKallsyms();
  const root = tree();
  const other = tree();
  try {
    const first = readKallsyms(root);
    assert.match(first, /__snd_pcm_xrun/);
    writeFileSync(join(root, 'kallsyms'), 'v2\n');
    assert.equal(readKallsyms(root), first, 'modules unchanged: the kept text');
    assert.equal(readKallsyms(root, true), 'v2\n', 'a retry reads the file');
    writeFileSync(join(root, 'kallsyms'), 'v3\n');
    writeFileSync(
      join(root, 'modules'),
      'snd_pcm 188416 1 - Live 0xffffffffc0600000\nx 1 0 - Loading 0x0\n',
    );
    assert.equal(readKallsyms(root), 'v3\n', 'a module came: read again');
    assert.match(readKallsyms(other), /__snd_pcm_xrun/, 'another tree is its own');
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  }
});

test('without /proc/modules nothing is kept; a missing kallsyms throws as readFileSync does', () => {
  forgetKallsyms();
  const root = tree();
  try {
    rmSync(join(root, 'modules'));
    assert.match(readKallsyms(root), /__snd_pcm_xrun/);
    writeFileSync(join(root, 'kallsyms'), 'v2\n');
    assert.equal(readKallsyms(root), 'v2\n');
    rmSync(join(root, 'kallsyms'));
    assert.throws(() => readKallsyms(root), { code: 'ENOENT' });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
