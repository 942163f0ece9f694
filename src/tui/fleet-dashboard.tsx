// The live fleet ranking for `aggregate --watch --tui`: the command pushes each new ranking
// with update(); `q` (or Ctrl-C) resolves `quit` so the command stops watching and closes
// its store. Off a terminal the command keeps its plain output and never calls this.
import { useEffect, useState } from 'react';
import type { Readable, Writable } from 'node:stream';
import { render, useApp, useInput, useStdin } from 'ink';
import type { FleetRanking } from '../bundle/store.js';
import { FleetBoard } from './components/fleet-board.js';
import { useTerminalSize } from './use-terminal-size.js';

interface Snapshot {
  ranking: FleetRanking | null;
  note: string;
  updatedAt: string | null;
}

/** A tiny store the Ink app subscribes to: the command writes, the app reads. */
class FleetFeed {
  snapshot: Snapshot = { ranking: null, note: '', updatedAt: null };
  private readonly listeners = new Set<() => void>();
  set(next: Snapshot): void {
    this.snapshot = next;
    for (const l of this.listeners) l();
  }
  subscribe(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

function FleetApp({
  feed,
  watching,
  onQuit,
}: {
  feed: FleetFeed;
  watching: readonly string[];
  onQuit: () => void;
}) {
  const [snap, setSnap] = useState(feed.snapshot);
  const size = useTerminalSize();
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();
  useEffect(() => {
    const off = feed.subscribe(() => setSnap(feed.snapshot));
    // An update that came before this subscription (the first ranking) is picked up here.
    setSnap(feed.snapshot);
    return off;
  }, [feed]);
  useInput(
    (input, key) => {
      if (input === 'q' || input === 'Q' || (key.ctrl && input === 'c')) {
        onQuit();
        exit();
      }
    },
    { isActive: isRawModeSupported === true },
  );
  return <FleetBoard {...snap} watching={watching} columns={size.columns} rows={size.rows} />;
}

export interface FleetDashboard {
  /** Shows a new ranking; `note` says what changed ("2 new bundles"). */
  update(ranking: FleetRanking, note: string, at: Date): void;
  /** Resolves when the user pressed q or Ctrl-C. */
  quit: Promise<void>;
  /** Unmounts (idempotent). */
  close(): void;
}

/** Starts the fleet board on a terminal. */
export function startFleetDashboard(
  io: { stdout: Writable; stdin: Readable; stderr: Writable },
  watching: readonly string[],
): FleetDashboard {
  const feed = new FleetFeed();
  let resolveQuit: () => void = () => undefined;
  const quit = new Promise<void>((r) => (resolveQuit = r));
  const ink = render(<FleetApp feed={feed} watching={watching} onQuit={() => resolveQuit()} />, {
    stdout: io.stdout as NodeJS.WriteStream,
    stdin: io.stdin as NodeJS.ReadStream,
    stderr: io.stderr as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let closed = false;
  return {
    update(ranking, note, at) {
      feed.set({ ranking, note, updatedAt: at.toTimeString().slice(0, 8) });
    },
    quit,
    close() {
      if (closed) return;
      closed = true;
      ink.unmount();
      resolveQuit();
    },
  };
}
