// Pure: a fleet ranking → text for a terminal or Markdown for a bug tracker / mailing list.
// The conclusion comes first (what to fix), then the table, then the facts behind each row.
import type { FleetRanking, RankingGroup, SignatureRank, ValueCount } from './store.js';

export type RankingFormat = 'text' | 'markdown';

const pct = (x: number): string => `${(x * 100).toFixed(x >= 0.1 ? 0 : 1)}%`;
const rate = (x: number): string => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2));
/** Hours of playback as people read them ("12 h", "1.5 h", "4.2 min"). */
export const playback = (h: number): string =>
  h >= 10
    ? `${h.toFixed(0)} h`
    : h >= 1
      ? `${h.toFixed(1)} h`
      : `${(h * 60).toFixed(h * 60 >= 10 ? 0 : 1)} min`;

/** "a (3), b (1)" with at most `max` values and "+N more". */
export function listCounts(values: ValueCount[], max = 3): string {
  const shown = values.slice(0, max).map((v) => `${v.value} (${v.count})`);
  return values.length > max
    ? `${shown.join(', ')}, +${values.length - max} more`
    : shown.join(', ');
}

function classLine(g: RankingGroup): string {
  const c = g.classes;
  const all = c.kernel + c.idle + c.user + c.none;
  if (all === 0) return 'no kernel events';
  return `kernel events: ${all} — kernel code ${c.kernel} (${pct(c.kernel / all)}), idle ${c.idle}, user space ${c.user}, unattributed ${c.none}`;
}

function heading(r: FleetRanking, g: RankingGroup): string {
  const what = r.by === null ? 'Fleet' : `${r.by} ${g.key}`;
  return `${what}: ${g.bundles} bundle${g.bundles === 1 ? '' : 's'} from ${g.machines} machine${g.machines === 1 ? '' : 's'}, ${playback(g.playbackHours)} of playback`;
}

const name = (s: SignatureRank): string =>
  s.module ? `${s.function} [${s.module}]` : (s.function ?? s.signature);

function rulesNote(r: FleetRanking): string | null {
  if (r.rulesVersions.length <= 1) return null;
  return `note: stored bundles were signed with ${r.rulesVersions.length} rules versions (${listCounts(r.rulesVersions, 4)}); run "xrunhunt aggregate --resign" so the same offender groups together`;
}

/** Renders the ranking for a terminal. */
export function renderRankingText(r: FleetRanking): string {
  const lines: string[] = [];
  if (r.groups.length === 0)
    return 'No bundles in the store yet (or none since the --since date).\n';
  const top = r.groups[0]?.signatures[0];
  if (r.by === null && top) {
    lines.push(
      `Top offender: ${name(top)} — ${top.incidents} incidents on ${top.machines} machine${top.machines === 1 ? '' : 's'}, ${pct(top.share)} of kernel-code xruns (signature: ${top.signature})`,
      '',
    );
  }
  for (const g of r.groups) {
    lines.push(heading(r, g), classLine(g));
    if (g.signatures.length === 0) {
      lines.push('  no kernel-code offenders', '');
      continue;
    }
    const rows = g.signatures.map((s, i) => [
      String(i + 1),
      String(s.incidents),
      String(s.machines),
      rate(s.perMachineHour),
      pct(s.share),
      s.signature,
    ]);
    const head = ['#', 'incidents', 'machines', 'per m-h', 'share', 'signature'];
    const w = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const fmt = (row: string[]): string =>
      '  ' + row.map((c, i) => (i === row.length - 1 ? c : c.padStart(w[i]!))).join('  ');
    lines.push(fmt(head));
    for (const [i, row] of rows.entries()) {
      const s = g.signatures[i]!;
      lines.push(fmt(row));
      lines.push(
        `      kernels ${s.kernels.first.release} (first, ${s.kernels.first.at.slice(0, 10)}) … ${s.kernels.last.release} (last, ${s.kernels.last.at.slice(0, 10)}); ${s.kernels.list.length} release${s.kernels.list.length === 1 ? '' : 's'}`,
        `      drivers ${listCounts(s.drivers)}; preemption ${listCounts(s.preempts)}; load ${listCounts(s.loads)}`,
      );
    }
    if (g.more > 0)
      lines.push(`  … ${g.more} more signature${g.more === 1 ? '' : 's'} (raise --top)`);
    lines.push('');
  }
  if (top) {
    lines.push(`Example stack of the top offender (${top.signature}):`);
    for (const f of top.exampleStack) lines.push(`  ${f}`);
    lines.push('');
  }
  const note = rulesNote(r);
  if (note) lines.push(note, '');
  return lines.join('\n');
}

const mdCell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Renders the ranking as Markdown (tables) for issues and mail. */
export function renderRankingMarkdown(r: FleetRanking): string {
  const lines: string[] = ['# xrunhunt fleet ranking', ''];
  if (r.groups.length === 0) return lines.concat('No bundles in the store yet.', '').join('\n');
  for (const g of r.groups) {
    lines.push(`## ${heading(r, g)}`, '', classLine(g), '');
    if (g.signatures.length === 0) {
      lines.push('No kernel-code offenders.', '');
      continue;
    }
    lines.push(
      '| # | signature | incidents | machines | per machine-hour | share | kernels (first … last) | drivers | preemption | load |',
      '|---:|---|---:|---:|---:|---:|---|---|---|---|',
    );
    g.signatures.forEach((s, i) => {
      lines.push(
        `| ${i + 1} | \`${mdCell(s.signature)}\` | ${s.incidents} | ${s.machines} | ${rate(s.perMachineHour)} | ${pct(s.share)} | ${mdCell(s.kernels.first.release)} … ${mdCell(s.kernels.last.release)} | ${mdCell(listCounts(s.drivers))} | ${mdCell(listCounts(s.preempts))} | ${mdCell(listCounts(s.loads))} |`,
      );
    });
    if (g.more > 0) lines.push('', `${g.more} more signatures not shown.`);
    lines.push('');
  }
  const top = r.groups[0]?.signatures[0];
  if (top) {
    lines.push(
      `Example stack of \`${mdCell(top.signature)}\`:`,
      '',
      '```',
      ...top.exampleStack,
      '```',
      '',
    );
  }
  const note = rulesNote(r);
  if (note) lines.push(`> ${note}`, '');
  return lines.join('\n');
}
