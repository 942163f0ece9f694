#!/usr/bin/env node
// Copies the non-TypeScript files the runtime reads (signature rule lists, the message catalogue) next to the
// compiled JavaScript, so dist/ works on its own.
import { cpSync, existsSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
for (const dir of ['analysis/rules', 'analysis/catalogue']) {
  const from = `${root}src/${dir}`;
  if (existsSync(from))
    cpSync(from, `${root}dist/${dir}`, { recursive: true, filter: (p) => !p.endsWith('.ts') });
}
