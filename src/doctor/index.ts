// Public surface of src/doctor: gather facts (IO), run checks (pure), choose a capture backend.
export type { DoctorFacts, DoctorRoots } from './facts.js';
export { gatherFacts, DEFAULT_ROOTS, AUDIO_SERVER_NAMES } from './gather-facts.js';
export type { Check, CheckStatus, DoctorReport } from './checks.js';
export { runChecks } from './checks.js';
export type { CaptureBackend, CaptureChoice } from './capture-backend.js';
export { chooseCaptureBackend } from './capture-backend.js';
export { renderDoctorText } from './render-text.js';
