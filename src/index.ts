// The package's import entry (`import { analyzeText } from 'xrunhunt'`): the pure analysis
// core, the bundle format and its readers/writers, and the error family. Nothing here loads
// native modules (the FFI, SQLite) or touches the machine at import time; the fleet store
// is reachable as `openFleetStore`, which loads the optional SQLite module on first call.
export * from './analysis/index.js';
export * from './bundle/index.js';
export {
  openFleetStore,
  GROUP_BYS,
  type FleetStore,
  type FleetRanking,
  type GroupBy,
} from './bundle/store.js';
export {
  XrunhuntError,
  UsageError,
  InterruptedError,
  isXrunhuntError,
  type ErrorCode,
} from './errors.js';
export { escapeControlChars, quoteUntrusted } from './text/untrusted-text.js';
export { toolVersion } from './tool-version.js';
