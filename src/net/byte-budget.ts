// A global count of bytes held by request bodies still arriving or waiting for admission.
// Bodies are counted as they arrive (a slow peer that declared 1 MB but sent 10 bytes holds
// 10 bytes), so the budget bounds real memory, not promises.

export interface ByteBudget {
  /** Adds `n` bytes if they fit under the limit; false (and nothing added) otherwise. */
  tryTake(n: number): boolean;
  give(n: number): void;
  inUse(): number;
}

/** Creates a budget of `limit` bytes. */
export function createByteBudget(limit: number): ByteBudget {
  let used = 0;
  return {
    tryTake(n) {
      if (used + n > limit) return false;
      used += n;
      return true;
    },
    give(n) {
      used = Math.max(0, used - n);
    },
    inUse: () => used,
  };
}
