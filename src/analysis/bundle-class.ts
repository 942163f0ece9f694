// The offender classes that session events and bundle format v1 know (kernel, idle, user,
// none). `detector-only` is newer: until the bundle format carries it (with a version bump and
// an upgrade path), it travels as `none`, which is what such events were before it existed.
import type { OffenderClass } from './types.js';

/** An offender class in the vocabulary of session events and bundles v1. */
export type BundleV1Class = Exclude<OffenderClass, 'detector-only'>;

/** Folds an analyzer class into the session/bundle v1 vocabulary (detector-only → none). */
export function toBundleV1Class(c: OffenderClass): BundleV1Class {
  return c === 'detector-only' ? 'none' : c;
}
