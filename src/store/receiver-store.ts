// serve --store: the receiver's link to a shared fleet store. Accepted uploads are on disk in
// the inbox first; each is then ingested into the store at once. When the store is away
// (restarting, network), the upload is still accepted and its file is ingested by the next
// drain, which also runs at start (files a killed receiver wrote but never ingested).
import { ingestFiles, listBundleFiles, type IngestReport } from '../bundle/ingest.js';
import type { ReceiverStore } from '../bundle/receiver.js';
import type { FleetBackend } from './fleet-backend.js';

export interface InboxStoreLink extends ReceiverStore {
  /** Ingests every inbox file the store does not know yet; null when the store was away. */
  drain(): Promise<IngestReport | null>;
  /** Files accepted while the store was away, not yet ingested. */
  pending(): number;
}

/** Links an inbox to a store; `onError` hears why an ingest was deferred. */
export function linkInboxToStore(
  store: FleetBackend,
  inbox: string,
  onError: (err: unknown) => void = () => undefined,
): InboxStoreLink {
  const waiting = new Set<string>();
  let draining: Promise<IngestReport | null> | null = null;
  return {
    hasBundle: (hash) => store.hasBundle(hash),
    async stored(file) {
      try {
        const r = await ingestFiles(store, [file], { inbox });
        waiting.delete(file);
        if (r.added > 0) return 'added';
        return 'duplicate';
      } catch (err) {
        waiting.add(file);
        onError(err);
        return 'deferred';
      }
    },
    drain() {
      draining ??= (async () => {
        try {
          const r = await ingestFiles(store, listBundleFiles([inbox]), { inbox });
          waiting.clear();
          return r;
        } catch (err) {
          onError(err);
          return null;
        } finally {
          draining = null;
        }
      })();
      return draining;
    },
    pending: () => waiting.size,
  };
}
