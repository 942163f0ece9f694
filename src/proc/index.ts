// Public surface of src/proc: /proc/asound discovery, xrun_debug control and the settings
// journal (reusable for tracefs/kprobe settings). Other folders import from here.
export * from './asound-formats.js';
export * from './xrun-debug-mask.js';
export * from './discover-asound.js';
export * from './kernel-config.js';
export * from './xrun-debug-absence.js';
export * from './setting-file.js';
export * from './journal.js';
export * from './journal-files.js';
export * from './xrun-debug-control.js';
export * from './restore-pending.js';
export * from './why-no-xrun-debug.js';
export * from './journal-trust.js';
export * from './journal-folder.js';
export * from './settings-lock.js';
export * from './restore-journals.js';
export * from './debuggable-streams.js';
export * from './settings-run.js';
