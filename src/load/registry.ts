// Every load kind, by name: the one place a new kind is registered.
import type { KindSpec } from './kind-spec.js';
import type { LoadKind } from './types.js';
import { cpuLoad } from './kinds/cpu.js';
import { externalLoad } from './kinds/external.js';
import { forkLoad } from './kinds/fork.js';
import { fsyncLoad } from './kinds/fsync.js';
import { idleLoad } from './kinds/idle.js';
import { memoryLoad } from './kinds/memory.js';
import { metadataLoad } from './kinds/metadata.js';
import { readLoad } from './kinds/read.js';
import { writeLoad } from './kinds/write.js';

const KINDS: Record<LoadKind, KindSpec> = {
  idle: idleLoad,
  write: writeLoad,
  fsync: fsyncLoad,
  metadata: metadataLoad,
  read: readLoad,
  memory: memoryLoad,
  cpu: cpuLoad,
  fork: forkLoad,
  external: externalLoad,
};

/** The spec of one kind (typed: every LoadKind has one). */
export function kindSpec(kind: LoadKind): KindSpec {
  return KINDS[kind];
}

/** All kinds with their one-line summaries, for help and docs. */
export function listKinds(): { kind: LoadKind; summary: string }[] {
  return Object.values(KINDS).map((k) => ({ kind: k.kind, summary: k.summary }));
}
