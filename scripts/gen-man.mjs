#!/usr/bin/env node
// Writes dist/man/xrunhunt.1 from the built command specs (the same text `xrunhunt man`
// prints), so `npm install -g` installs the manual page (package.json "man").
import { mkdirSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const { loadAllEntries } = await import(`${root}dist/cli/command-catalog.js`);
const { manPageDate, renderManPage } = await import(`${root}dist/cli/man-page.js`);
const { toolVersion } = await import(`${root}dist/tool-version.js`);
const date = manPageDate(process.env);
mkdirSync(`${root}dist/man`, { recursive: true });
writeFileSync(
  `${root}dist/man/xrunhunt.1`,
  renderManPage(await loadAllEntries(), toolVersion(), date),
);
