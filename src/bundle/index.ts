// Public surface of the bundle area: the format types, reading/validation/upgrade, writing,
// scrubbing and the machine id. The fleet store is imported from ./store.js directly (it
// loads the native SQLite module, which readers of a single bundle do not need).
export * from './schema.js';
export { validateBundle, isBundleJson, describeValue } from './validate.js';
export { upgradeBundle } from './upgrade.js';
export {
  readBundle,
  parseBundleBytes,
  decodeBundleBytes,
  isGzip,
  MAX_BUNDLE_BYTES,
} from './read.js';
export { writeBundle, encodeBundle, writeFileAtomic } from './write.js';
export {
  createScrubber,
  scrubBundle,
  scrubText,
  PLACEHOLDERS,
  HTML_PLACEHOLDERS,
  type Scrubber,
  type ScrubKnown,
} from './scrub.js';
export { gatherScrubKnown, DEFAULT_SCRUB_ROOTS, type ScrubKnownRoots } from './scrub-known.js';
export {
  scrubBundleFolder,
  scrubEventLogFile,
  scrubTextFile,
  scrubBundleFile,
  folderScrubWarnings,
  type FolderScrubResult,
} from './scrub-folder.js';
export { machineId, machineIdPath } from './machine-id.js';
export { canonicalJson, contentHash, bundleHash } from './content-hash.js';
export { framesToBundleText, frameText, bundleFramesToLog, type FrameLike } from './frame-text.js';
