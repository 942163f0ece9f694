// Which of a client's open uploads may give its place to a new one. Per-client limits key on
// the address, and on loopback (serve's default) every local user is the same address: one
// of them holding all of 127.0.0.1's places with bodies that hardly move would lock the others
// out until the body deadline cuts them, again and again. So when a client is at its limit,
// its slowest upload that has had a fair chance (open ≥ minAgeMs) and is still below the
// minimum rate is cut in favour of the newcomer. A body that arrives at a normal rate is never
// displaced.

export interface UploadProgress {
  startedMs: number;
  receivedBytes: number;
}

export interface DisplacePolicy {
  minAgeMs: number;
  minBytesPerSec: number;
}

/** Index of the upload to displace (lowest average rate among the eligible), or null. */
export function pickDisplaceable(
  uploads: readonly UploadProgress[],
  nowMs: number,
  policy: DisplacePolicy,
): number | null {
  let best: number | null = null;
  let bestRate = Infinity;
  uploads.forEach((u, i) => {
    const age = nowMs - u.startedMs;
    if (age < policy.minAgeMs) return;
    const rate = u.receivedBytes / (age / 1000);
    if (rate < policy.minBytesPerSec && rate < bestRate) {
      best = i;
      bestRate = rate;
    }
  });
  return best;
}

export interface OpenUpload {
  startedMs: number;
  receivedBytes(): number;
  /** Ends this upload's body read (answered 408) and frees its place at once. */
  displace(): void;
}

/** The open uploads of each client, so a newcomer can displace a stalled one. */
export interface SlowUploadRegistry {
  /** Records an open upload; returns the function that forgets it. */
  add(key: string, upload: OpenUpload): () => void;
  /** Displaces the client's slowest stalled upload; false when none qualifies. */
  displaceOne(key: string, nowMs: number): boolean;
}

/** Creates a registry that displaces under `policy`. */
export function createSlowUploadRegistry(policy: DisplacePolicy): SlowUploadRegistry {
  const byClient = new Map<string, Set<OpenUpload>>();
  return {
    add(key, upload) {
      let set = byClient.get(key);
      if (!set) byClient.set(key, (set = new Set()));
      set.add(upload);
      return () => {
        set.delete(upload);
        if (set.size === 0 && byClient.get(key) === set) byClient.delete(key);
      };
    },
    displaceOne(key, nowMs) {
      const list = [...(byClient.get(key) ?? [])];
      const i = pickDisplaceable(
        list.map((u) => ({ startedMs: u.startedMs, receivedBytes: u.receivedBytes() })),
        nowMs,
        policy,
      );
      if (i === null) return false;
      list[i]!.displace();
      return true;
    },
  };
}
