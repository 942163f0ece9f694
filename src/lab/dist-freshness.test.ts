import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_CLI, bundleIsCurrent, distIsCurrent, newestMtimeMs } from './dist-freshness.js';

test('distIsCurrent: missing dist is stale; a build newer than every source is current; a later source edit makes it stale', () => {
  const root = mkdtempSync(join(tmpdir(), 'xrunhunt-fresh-'));
  try {
    mkdirSync(join(root, 'src', 'deep'), { recursive: true });
    writeFileSync(join(root, 'src', 'deep', 'a.ts'), '');
    utimesSync(join(root, 'src', 'deep', 'a.ts'), 1000, 1000);
    assert.equal(distIsCurrent(root), false);
    mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(root, 'dist', 'cli', 'main.js'), '');
    utimesSync(join(root, 'dist', 'cli', 'main.js'), 2000, 2000);
    assert.equal(distIsCurrent(root), true);
    utimesSync(join(root, 'src', 'deep', 'a.ts'), 3000, 3000);
    assert.equal(newestMtimeMs(join(root, 'src')), 3_000_000);
    assert.equal(distIsCurrent(root), false);
    assert.equal(newestMtimeMs(join(root, 'nowhere')), 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('bundleIsCurrent: the bundle counts only when it is newer than both dist/ and src/', () => {
  const root = mkdtempSync(join(tmpdir(), 'xrunhunt-fresh-'));
  try {
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'src', 'a.ts'), '');
    utimesSync(join(root, 'src', 'a.ts'), 1000, 1000);
    mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(root, 'dist', 'cli', 'main.js'), '');
    utimesSync(join(root, 'dist', 'cli', 'main.js'), 2000, 2000);
    assert.equal(bundleIsCurrent(root), false, 'no bundle');
    mkdirSync(join(root, 'dist', 'bundle-cli'), { recursive: true });
    writeFileSync(join(root, BUNDLED_CLI), '');
    utimesSync(join(root, BUNDLED_CLI), 3000, 3000);
    assert.equal(bundleIsCurrent(root), true);
    utimesSync(join(root, 'dist', 'cli', 'main.js'), 4000, 4000);
    assert.equal(bundleIsCurrent(root), false, 'dist/ rebuilt after the bundle');
    utimesSync(join(root, BUNDLED_CLI), 5000, 5000);
    utimesSync(join(root, 'src', 'a.ts'), 6000, 6000);
    assert.equal(bundleIsCurrent(root), false, 'a source edited after the bundle');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
