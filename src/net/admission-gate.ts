// Admission to the expensive part of an upload (inflate, parse, validate, write), taken only
// once the body has fully arrived. Two resources are bounded together: processing slots
// (CPU work at once) and bytes reserved for decompressed bundles (memory: a 68 KB gzip can
// expand to 32 MB of JSON, and the parsed objects cost several times that). A request that
// does not fit waits in a queue; whenever something is released, waiters are admitted in
// arrival order, each that fits (a small bundle does not wait behind a huge one). Growing a
// reservation never waits (it is granted or refused at once), so no set of holders can
// deadlock waiting for each other. Timers belong to the caller; this core only counts.

export interface AdmissionLimits {
  slots: number;
  bytes: number;
  /** Most requests waiting at once; more are refused. */
  maxWaiting: number;
}

export interface AdmissionTicket {
  readonly id: number;
  bytes: number;
}

export type AdmissionRequest =
  | { kind: 'granted'; ticket: AdmissionTicket }
  | { kind: 'queued'; cancel(): void }
  | { kind: 'refused'; reason: 'queue-full' | 'larger-than-budget' };

export interface AdmissionStats {
  slotsInUse: number;
  bytesInUse: number;
  waiting: number;
}

export interface AdmissionGate {
  /** Admits now, queues (`onGrant` is called later), or refuses. */
  request(bytes: number, onGrant: (ticket: AdmissionTicket) => void): AdmissionRequest;
  /** Raises a ticket's reservation to `bytes` if that fits now; never waits. */
  grow(ticket: AdmissionTicket, bytes: number): boolean;
  /** Gives a ticket back (idempotent) and admits waiters that now fit. */
  release(ticket: AdmissionTicket): void;
  stats(): AdmissionStats;
}

interface Waiter {
  bytes: number;
  onGrant: (ticket: AdmissionTicket) => void;
}

/** Creates a gate with the given limits. */
export function createAdmissionGate(limits: AdmissionLimits): AdmissionGate {
  let slotsInUse = 0;
  let bytesInUse = 0;
  let nextId = 1;
  const held = new Set<number>();
  const waiters: Waiter[] = [];
  const fits = (bytes: number): boolean =>
    slotsInUse < limits.slots && bytesInUse + bytes <= limits.bytes;
  const admit = (bytes: number): AdmissionTicket => {
    slotsInUse++;
    bytesInUse += bytes;
    const ticket = { id: nextId++, bytes };
    held.add(ticket.id);
    return ticket;
  };
  const wakeWaiters = (): void => {
    for (let i = 0; i < waiters.length && slotsInUse < limits.slots;) {
      const w = waiters[i]!;
      if (fits(w.bytes)) {
        waiters.splice(i, 1);
        w.onGrant(admit(w.bytes));
      } else i++;
    }
  };
  return {
    request(bytes, onGrant) {
      if (bytes > limits.bytes) return { kind: 'refused', reason: 'larger-than-budget' };
      if (waiters.length === 0 && fits(bytes)) return { kind: 'granted', ticket: admit(bytes) };
      if (waiters.length >= limits.maxWaiting) return { kind: 'refused', reason: 'queue-full' };
      const w: Waiter = { bytes, onGrant };
      waiters.push(w);
      return {
        kind: 'queued',
        cancel: () => {
          const i = waiters.indexOf(w);
          if (i !== -1) waiters.splice(i, 1);
        },
      };
    },
    grow(ticket, bytes) {
      if (!held.has(ticket.id)) return false;
      const extra = bytes - ticket.bytes;
      if (extra <= 0) return true;
      if (bytesInUse + extra > limits.bytes) return false;
      bytesInUse += extra;
      ticket.bytes = bytes;
      return true;
    },
    release(ticket) {
      if (!held.delete(ticket.id)) return;
      slotsInUse--;
      bytesInUse -= ticket.bytes;
      wakeWaiters();
    },
    stats: () => ({ slotsInUse, bytesInUse, waiting: waiters.length }),
  };
}
