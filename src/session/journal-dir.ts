// Kept for the session/watch/stress commands: the journal folder is decided in one place,
// src/proc/journal-folder.ts (resolveJournalFolder); this re-exports its building block.
export { usableJournalDir } from '../proc/journal-folder.js';
