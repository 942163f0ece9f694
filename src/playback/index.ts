// The playback engine's public surface for the session and the CLI.
export { startPlayback, PlaybackHandle } from './start-playback.js';
export type { StartPlaybackContext } from './start-playback.js';
export type {
  PlaybackOptions,
  PlaybackEvents,
  PlaybackSummary,
  StartedEvent,
  StatsEvent,
  WarningEvent,
  XrunEvent,
  PolicyReport,
  EndReason,
  SignalKind,
  GrantedParams,
  HwPcm,
  HistogramSummary,
  StallPlan,
  ThreadUsage,
  WakeupGrant,
  WakeupMode,
} from './types.js';
export { parseStallPlan, stallPlanSpanMs } from './stall-plan.js';
export { AlsaError } from '../alsa/alsa-error.js';
