// The one store contract aggregate, aggregate --watch, serve and ingest use, whatever holds
// the fleet: the embedded SQLite file (sync, wrapped) or a shared PostgreSQL server (async).
import type { ClassRanking } from './class-ranking-build.js';
import type {
  ClassRankQuery,
  FleetRanking,
  IngestItem,
  IngestResult,
  RankQuery,
  SignFrames,
} from '../bundle/store.js';

/** A fleet store backend. Every method may be called concurrently from one process. */
export interface FleetBackend {
  /** What to show users: a file path, or a PostgreSQL URL without its password. */
  readonly label: string;
  readonly kind: 'sqlite' | 'postgres';
  /** Whether this exact file (path, size, mtime) was already ingested: skip reading it. */
  isKnownFile(path: string, size: number, mtimeMs: number): Promise<boolean>;
  /** Optional batch form of isKnownFile (one round trip); keys from knownFileKey(). */
  knownFiles?(files: { path: string; size: number; mtimeMs: number }[]): Promise<Set<string>>;
  /** Whether a bundle with this content hash is stored. */
  hasBundle(hash: string): Promise<boolean>;
  /** Stores a batch atomically; a bundle already stored (same hash) counts as a duplicate. */
  ingest(items: IngestItem[], nowMs: number): Promise<IngestResult>;
  /** Total bundles stored. */
  count(): Promise<number>;
  rank(query?: RankQuery): Promise<FleetRanking>;
  /** The ranking per class (breakdown class, else offender class) with each class's culprits. */
  rankClasses(query?: ClassRankQuery): Promise<ClassRanking>;
  /** The rules version of the last --resign, or null. */
  rulesVersion(): Promise<string | null>;
  /** Recomputes every stored signature with the current rules (see FleetStore.resign). */
  resign(sign: SignFrames, rulesVersion: string): Promise<{ stacks: number; events: number }>;
  close(): Promise<void>;
}
