// `aggregate --watch --tui`: the fleet ranking as a live table that refreshes as bundles
// arrive in the inboxes. Stateless: fleet-dashboard.tsx owns the data and the keys.
import type { ReactElement } from 'react';
import { Box, Text } from 'ink';
import type { FleetRanking, RankingGroup, SignatureRank } from '../../bundle/store.js';
import { fit, hbar } from '../text-graphics.js';

export interface FleetBoardProps {
  ranking: FleetRanking | null;
  /** Folders being watched. */
  watching: readonly string[];
  /** Last ingest note ("3 new, 1 skipped") and when (HH:MM:SS). */
  note: string;
  updatedAt: string | null;
  columns: number;
  rows: number;
}

const COUNT_W = 6; // "incid."
const MACH_W = 5;
const SHARE_W = 5;
const BAR_W = 8;

function name(s: SignatureRank): string {
  return s.function ? (s.module ? `${s.function} [${s.module}]` : s.function) : s.signature;
}

function groupTitle(r: FleetRanking, g: RankingGroup): string {
  const what = r.by === null ? 'fleet' : `${r.by} ${g.key ?? '?'}`;
  return `${what}: ${g.bundles} bundles, ${g.machines} machines, ${g.playbackHours.toFixed(1)} h playback, ${g.classes.kernel} kernel-code xruns`;
}

/** Header, then per group a title and as many ranked rows as fit the terminal. */
export function FleetBoard({ ranking, watching, note, updatedAt, columns, rows }: FleetBoardProps) {
  const w = Math.max(20, columns);
  const lines: ReactElement[] = [];
  // Rows left for the table: terminal minus header (2), column titles (1), one spare.
  let budget = Math.max(1, rows - 4);
  const nameW = Math.max(8, w - 3 - COUNT_W - MACH_W - SHARE_W - BAR_W - 6);
  if (ranking === null || ranking.groups.every((g) => g.signatures.length === 0)) {
    lines.push(
      <Text key="empty" dimColor>
        {fit('no kernel offenders in the store yet: waiting for bundles…', w)}
      </Text>,
    );
  } else {
    lines.push(
      <Text key="cols" dimColor>
        {fit(
          `${'#'.padStart(3)} ${'incid.'.padStart(COUNT_W)} ${'mach.'.padStart(MACH_W)} ${'share'.padStart(SHARE_W)} ${''.padEnd(BAR_W)} offender`,
          w,
        )}
      </Text>,
    );
    for (const [gi, g] of ranking.groups.entries()) {
      if (budget <= 1) break;
      lines.push(
        <Text key={`g${gi}`} bold color="cyan">
          {fit(groupTitle(ranking, g), w)}
        </Text>,
      );
      budget -= 1;
      const max = g.signatures[0]?.incidents ?? 1;
      for (const [i, s] of g.signatures.entries()) {
        if (budget <= 0) break;
        lines.push(
          <Text key={`g${gi}-${s.signature}`} wrap="truncate-end">
            {String(i + 1).padStart(3)} {String(s.incidents).padStart(COUNT_W)}{' '}
            {String(s.machines).padStart(MACH_W)}{' '}
            {`${Math.round(s.share * 100)}%`.padStart(SHARE_W)}{' '}
            <Text color={i === 0 ? 'red' : 'magenta'}>{hbar(s.incidents, max, BAR_W)}</Text>{' '}
            <Text bold={i === 0}>{fit(name(s), nameW)}</Text>
          </Text>,
        );
        budget -= 1;
      }
    }
  }
  return (
    <Box flexDirection="column" width={w}>
      <Text wrap="truncate-end">
        <Text bold>xrunhunt fleet</Text>
        <Text color="green">{fit(` watching ${watching.join(', ')}`, Math.max(0, w - 25))}</Text>
        <Text dimColor>{' q quit'}</Text>
      </Text>
      <Text dimColor wrap="truncate-end">
        {fit(
          updatedAt ? `updated ${updatedAt}${note ? ` · ${note}` : ''}` : 'reading the store…',
          w,
        ) || ' '}
      </Text>
      {lines}
    </Box>
  );
}
