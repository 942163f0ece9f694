// The bundled CLI (dist/bundle-cli, scripts/bundle-cli.mjs) is the same program as dist/: the
// lab's guest runs it (a quarter of dist/'s start-up under TCG), so each part that finds a file
// by its own location is run through it here: the command catalogue (every command's --help),
// the rule lists and message catalogue (analyze of a real log, compared with dist/), the
// playback worker thread (play on libasound's null PCM) and the load child processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runProgram } from '../helpers/cli.js';
import type { CliResult } from '../helpers/cli.js';
import { commandNames } from '../../src/cli/command-catalog.js';

const BUNDLE = join(repoRoot, 'dist', 'bundle-cli', 'xrunhunt.js');
const BIN = join(repoRoot, 'bin', 'xrunhunt.js');
const skip = existsSync(BUNDLE) ? false : 'dist/bundle-cli is not built: run `npm run build`';

const run = (entry: string, args: string[]): Promise<CliResult> =>
  runProgram(process.execPath, [entry, ...args]);

test(
  "bundled CLI: --version and every command's --help print what dist/ prints",
  { skip },
  async () => {
    for (const args of [['--version'], ['--help'], ...commandNames().map((n) => [n, '--help'])]) {
      const [a, b] = await Promise.all([run(BUNDLE, args), run(BIN, args)]);
      assert.equal(a.code, b.code, `${args.join(' ')}: ${a.stderr}`);
      assert.equal(a.stdout, b.stdout, args.join(' '));
    }
  },
);

test(
  'bundled CLI: analyze of a real kernel log gives the same JSON report as dist/ (rule lists, message catalogue)',
  { skip },
  async () => {
    const log = join(
      repoRoot,
      'test',
      'fixtures',
      'kernel-logs',
      '003-i386-2.6.8-rc2-xrun-capture-with-preempt-timing.txt',
    );
    const [a, b] = await Promise.all([
      run(BUNDLE, ['analyze', log, '--json']),
      run(BIN, ['analyze', log, '--json']),
    ]);
    assert.equal(a.code, b.code, a.stderr);
    const strip = (s: string): unknown =>
      JSON.parse(s.replace(/"(durationMs|elapsedMs|generatedAt)":[^,}]*/g, '"$1":0'));
    assert.deepEqual(strip(a.stdout), strip(b.stdout));
    assert.ok(a.stdout.length > 200, a.stdout);
  },
);

test(
  'bundled CLI: play on the null PCM runs its real-time worker thread to the end',
  { skip },
  async () => {
    const r = await run(BUNDLE, [
      'play',
      '--device',
      'null',
      '--duration',
      '300ms',
      '--rt-priority',
      '0',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { frames: number; endReason: string };
    assert.ok(j.frames > 0, r.stdout);
  },
);

test(
  'bundled CLI: a write load runs its child processes and reports their throughput',
  { skip },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-bundle-load-'));
    try {
      const r = await run(BUNDLE, [
        'load',
        'write',
        '--duration',
        '1500ms',
        '--dir',
        dir,
        '--min-free',
        '0',
        '--json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout) as { kind: string; bytes: number; workers: number };
      assert.equal(j.kind, 'write');
      assert.equal(j.workers, 1);
      assert.ok(j.bytes > 0, r.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
