import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandNames, loadEntry } from './command-catalog.js';

test('the catalogue lists exactly the files in ./commands/, and each loads as the command it is named for', async () => {
  const files = readdirSync(fileURLToPath(new URL('./commands/', import.meta.url)))
    .filter((f) => /^[a-z][a-z-]*\.(js|ts|tsx)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.replace(/\.(js|ts|tsx)$/, ''))
    .sort();
  assert.deepEqual(commandNames(), files);
  for (const name of commandNames()) assert.equal((await loadEntry(name)).name, name);
  await assert.rejects(loadEntry('toString'), /no command file for toString/);
});
