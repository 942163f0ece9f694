// The one place that knows xrunhunt's version (package.json), for --version, bundles and
// journals. Not in cli/main.ts: commands importing main.ts would make a module cycle.
import { createRequire } from 'node:module';

/** The package version, as bundles and journals record it. */
export function toolVersion(): string {
  // src/tool-version.ts and dist/tool-version.js both sit one level below package.json.
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}
