#!/usr/bin/env node
// Bundles the built CLI (dist/) into dist/bundle-cli/: one entry file and a chunk per lazily
// loaded command, with the pure-JS dependencies inside. Why: a start of dist/ resolves, reads
// and links ~400 modules (180 of ours, 201 of TypeBox's), which costs ~0.15 s on the host but
// 4–30 s a start in the lab guest under TCG over 9p (measured: ESM resolution and linking were
// 2/3 of a lab session's start-up profile). Every `import.meta.url` is replaced by the URL of
// the dist/ file it came from, so relative paths (rule lists, the schema, the playback worker,
// the load child, package.json) resolve exactly as in dist/; native and worker-spawning
// packages stay external. The lab's guest runs this bundle when it is current (src/lab/lab-runner.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const outdir = join(dist, 'bundle-cli');
const entry = join(outdir, 'entry.src.mjs');

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
// The same two lines as bin/xrunhunt.js.
writeFileSync(
  entry,
  `import { main } from '../cli/main.js';\nprocess.exitCode = await main(process.argv.slice(2));\n`,
);

// The thread and process entries (the playback worker, the load child) are bundled too, beside
// the CLI entry; the two files that start them find them next to themselves, so their
// `import.meta.url` is a name in the bundle folder.
const SPAWNED = {
  'playback/playback-worker.js': 'playback-worker',
  'load/worker-main.js': 'worker-main',
};
const SPAWNERS = ['playback/start-playback.js', 'load/child-load.js'];

const keepFileUrl = {
  name: 'keep-file-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const rel = args.path.slice(dist.length + 1);
      const at = SPAWNERS.includes(rel) ? join(outdir, rel.split('/').at(-1)) : args.path;
      const url = JSON.stringify(pathToFileURL(at).href);
      return { contents: text.replace(/\bimport\.meta\.url\b/g, url), loader: 'js' };
    });
  },
};

await build({
  entryPoints: {
    xrunhunt: entry,
    ...Object.fromEntries(Object.entries(SPAWNED).map(([from, name]) => [name, join(dist, from)])),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // Native addons, and packages that start workers or load optional natives by path.
  external: ['koffi', 'better-sqlite3', 'pg', 'pino', 'ink', 'react', 'chokidar'],
  plugins: [keepFileUrl],
  logLevel: 'warning',
});
rmSync(entry);
