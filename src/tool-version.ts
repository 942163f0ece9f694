// The one place xrunhunt's version comes from: package.json, read at run time next to the
// compiled or source tree (src/ and dist/ both sit one level below the package root).
import { createRequire } from 'node:module';

let cached: string | undefined;

/** The package version (`0.1.0`), for --version, bundles, journals and report footers. */
export function toolVersion(): string {
  cached ??= (createRequire(import.meta.url)('../package.json') as { version: string }).version;
  return cached;
}
