// The four offender classes of bundle format v1 and of the reports' class counters (kernel,
// idle, user, none). `detector-only` is newer: bundles carry it since format 2, unfolded; the
// four-class counters (the report's classShares, the TUI, watch's live ranking) still count it
// as `none`, which is what such events were before it existed.
import type { OffenderClass } from './types.js';

/** An offender class in the vocabulary of session events and bundles v1. */
export type BundleV1Class = Exclude<OffenderClass, 'detector-only'>;

/** Folds an analyzer class into the session/bundle v1 vocabulary (detector-only → none). */
export function toBundleV1Class(c: OffenderClass): BundleV1Class {
  return c === 'detector-only' ? 'none' : c;
}
