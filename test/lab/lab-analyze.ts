// Host-side analysis of a lab run's dmesg.txt for the lab tests: through `xrunhunt analyze
// --json` (the real CLI) — the same path a user takes with a lab results folder.
import { runCli } from '../helpers/cli.js';

export interface LabAnalysis {
  summary: {
    events: number;
    byKind: Record<string, number>;
    byClass: Record<string, number>;
    offenders: number;
  };
  offenders: { function: string; module: string | null; count: number; share: number }[];
  events: {
    kind: string;
    frames: unknown[];
    offender: { class: string; function: string | null; module: string | null };
  }[];
}

// Runs the analyzer on a kernel log file and returns its JSON report.
export async function analyzeLog(path: string): Promise<LabAnalysis> {
  const r = await runCli(['analyze', path, '--json', '--top', '20'], { timeoutMs: 120_000 });
  if (r.code !== 0 && r.code !== 2) {
    throw new Error(`xrunhunt analyze ${path} exited ${r.code}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout) as LabAnalysis;
}
