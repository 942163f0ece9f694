// At most N uploads at once per client (see client-key.ts), so one client — one slow or
// greedy peer, or an authenticated one holding a shared token — cannot hold the receiver's
// sockets and memory for everyone. Entries exist only while a client has uploads open, so
// the table is bounded by the open connections.

export interface PerClientLimit {
  /** Takes one of the client's places; false when it already has `max` open. */
  tryTake(key: string): boolean;
  /** Gives a place back (call exactly once per successful tryTake). */
  release(key: string): void;
  /** Open uploads of one client. */
  count(key: string): number;
  /** Clients with at least one open upload. */
  clients(): number;
}

/** Creates a concurrent-upload limit of `max` per client key. */
export function createPerClientLimit(max: number): PerClientLimit {
  const open = new Map<string, number>();
  return {
    tryTake(key) {
      const n = open.get(key) ?? 0;
      if (n >= max) return false;
      open.set(key, n + 1);
      return true;
    },
    release(key) {
      const n = open.get(key) ?? 0;
      if (n <= 1) open.delete(key);
      else open.set(key, n - 1);
    },
    count: (key) => open.get(key) ?? 0,
    clients: () => open.size,
  };
}
