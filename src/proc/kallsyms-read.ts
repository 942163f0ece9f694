// /proc/kallsyms is the slowest file a run reads: the kernel formats every symbol on each read
// (about 200,000 lines on a Debian kernel; 0.6 s in the lab's emulated guest, tens of ms on
// hardware), and a kprobe session read it three times while starting (the doctor facts, the probe
// point, the module symbols), each --period auto probe again. The text changes only when modules
// come or go, so one read serves for as long as /proc/modules reads the same.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let last: { procRoot: string; modules: string; text: string } | null = null;

/**
 * `<procRoot>/kallsyms` as text, read again only when `<procRoot>/modules` changed since the last
 * read (a module loaded, unloaded or went Live), or when `again` (a retry for symbols the last
 * read lacked). Throws what readFileSync throws.
 */
export function readKallsyms(procRoot = '/proc', again = false): string {
  let modules: string | null;
  try {
    modules = readFileSync(join(procRoot, 'modules'), 'utf8');
  } catch {
    modules = null; // no /proc/modules (a copied tree, a kernel without modules): never reused
  }
  if (!again && modules !== null && last?.procRoot === procRoot && last.modules === modules)
    return last.text;
  const text = readFileSync(join(procRoot, 'kallsyms'), 'utf8');
  last = modules === null ? null : { procRoot, modules, text };
  return text;
}

/** Drops the kept text (tests that rewrite a fake tree's kallsyms between reads). */
export function forgetKallsyms(): void {
  last = null;
}
