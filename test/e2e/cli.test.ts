import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli.js';

test('--help lists the commands and exits 0', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Usage: xrunhunt <command>/);
});

test('an unknown command is a usage error with a pointer to --help, no stack trace', async () => {
  const r = await runCli(['frobnicate']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /unknown command "frobnicate"/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('--version prints the package version', async () => {
  const r = await runCli(['--version']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^xrunhunt \d+\.\d+\.\d+\n$/);
});

// --- conventions of the field (rtla, cyclictest, alsa-utils) ---

const BUNDLE = join(repoRoot, 'test/fixtures/bundles/session-ext4-writeback.json');

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'xrh-cli-'));
}

test('a mistyped command, subcommand or option gets a "did you mean"', async () => {
  const cmd = await runCli(['analyse', 'x.txt']);
  assert.equal(cmd.code, 1);
  assert.match(cmd.stderr, /unknown command "analyse" \(did you mean "analyze"\?\)/);
  const sub = await runCli(['debug', 'stauts']);
  assert.match(sub.stderr, /unknown debug command "stauts" \(did you mean "status"\?\)/);
  const opt = await runCli(['analyze', '--fromat', 'json', '-']);
  assert.equal(opt.code, 1);
  assert.match(opt.stderr, /unknown option --fromat for analyze \(did you mean "--format"\?\)/);
  const val = await runCli(['analyze', '--format', 'jsno', '-']);
  assert.match(
    val.stderr,
    /invalid --format "jsno": expected one of text, markdown, md, json, folded \(did you mean "json"\?\)/,
  );
  for (const r of [cmd, sub, opt, val]) assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('negative numbers are values: --top -1 and --size -5M say what is wrong, not "ambiguous"', async () => {
  const dir = tmp();
  try {
    const top = await runCli(['aggregate', '--db', join(dir, 'f.db'), '--top', '-1']);
    assert.equal(top.code, 1);
    assert.match(top.stderr, /invalid --top -1: cannot be negative; expected a value from 1 to/);
    const size = await runCli(['load', 'write', '--size', '-5M', '--dir', dir]);
    assert.equal(size.code, 1);
    assert.match(size.stderr, /invalid --size "-5M": a size cannot be negative/);
    for (const r of [top, size]) assert.doesNotMatch(r.stderr, /ambiguous/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('-q drops progress but keeps warnings; it works before or after the command name', async () => {
  const dir = tmp();
  try {
    writeFileSync(join(dir, 'bad.json'), '{"formatVersion": 1');
    const args = ['aggregate', BUNDLE, join(dir, 'bad.json'), '--db', join(dir, 'f.db')];
    const loud = await runCli(args);
    assert.equal(loud.code, 0, loud.stderr);
    assert.match(loud.stderr, /^ingested 2 files/m);
    assert.match(loud.stderr, /^xrunhunt: skipped /m);
    for (const quiet of [
      [...args, '-q'],
      ['-q', ...args],
      [...args, '--quiet'],
    ]) {
      const r = await runCli(quiet);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /ingested/);
      assert.match(r.stderr, /^xrunhunt: skipped /m);
      assert.equal(r.stdout, loud.stdout);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--debug prints the version and parsed options, and the stack of an error', async () => {
  const r = await runCli(['analyze', '--debug', '/nonexistent/kern.log']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^xrunhunt: debug: xrunhunt \d+\.\d+\.\d+, node v/m);
  assert.match(r.stderr, /^xrunhunt: debug: command "analyze", options \{/m);
  assert.match(r.stderr, /^xrunhunt: error: /m);
  assert.match(r.stderr, /\n\s+at /);
  const plain = await runCli(['analyze', '/nonexistent/kern.log']);
  assert.doesNotMatch(plain.stderr, /debug:|\n\s+at /);
});

test('short options rtla/cyclictest/aplay users type: -D device, -d duration, -p priority, -a CPU', async () => {
  const help = await runCli(['play', '--help']);
  for (const f of [
    '-D, --device',
    '-d, --duration',
    '-p, --rt-priority',
    '-a, --cpu',
    '-q, --quiet',
  ]) {
    assert.ok(help.stdout.includes(f), f);
  }
  const session = await runCli(['session', '--help']);
  for (const f of ['-D, --device', '-d, --duration', '-p, --rt-priority', '-a, --cpu']) {
    assert.ok(session.stdout.includes(f), f);
  }
  // -p goes through the same range check as --rt-priority.
  const bad = await runCli(['play', '-D', 'null', '-p', '120', '-d', '1s']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--rt-priority 120: expected a value from 0 to 99/);
});

test('one meaning per flag: stress --periods is a deprecated alias of --period-sizes', async () => {
  const old = await runCli(['stress', '--periods', '7']);
  assert.equal(old.code, 1);
  assert.match(old.stderr, /note: --periods is deprecated for stress; use --period-sizes/);
  assert.match(old.stderr, /7/);
  const renamed = await runCli(['stress', '--period-sizes', '7']);
  assert.equal(renamed.code, 1);
  assert.doesNotMatch(renamed.stderr, /deprecated/);
  assert.equal(
    old.stderr.replace(/^xrunhunt: note: .*\n/m, ''),
    renamed.stderr,
    'the old spelling means exactly the new one',
  );
  const play = await runCli(['play', '--help']);
  assert.match(play.stdout, /-f, --sample-format FORMAT.*old spelling --format: deprecated/);
});

test('completion and man are generated from the specs', async () => {
  const bash = await runCli(['completion', 'bash']);
  assert.equal(bash.code, 0, bash.stderr);
  assert.match(bash.stdout, /complete .*-F _xrunhunt xrunhunt/);
  const zsh = await runCli(['completion', 'zsh']);
  assert.match(zsh.stdout, /^#compdef xrunhunt/);
  const fish = await runCli(['completion', 'fish']);
  assert.equal(fish.code, 1);
  assert.match(fish.stderr, /unknown shell "fish": expected bash or zsh/);
  const man = await runCli(['man']);
  assert.equal(man.code, 0, man.stderr);
  assert.match(man.stdout, /^\.TH XRUNHUNT 1 /);
});

test('bin/xrunhunt.js (the built CLI users run) prints the version and takes -q before the command', async () => {
  const bin = join(repoRoot, 'bin/xrunhunt.js');
  assert.ok(existsSync(join(repoRoot, 'dist/cli/main.js')), 'run `npm run build` first');
  const run = (args: string[]): { code: number | null; stdout: string; stderr: string } => {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', input: '' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const v = run(['--version']);
  assert.equal(v.code, 0, v.stderr);
  assert.equal(
    v.stdout,
    `xrunhunt ${(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version}\n`,
  );
  const typo = run(['-q', 'analize']);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /did you mean "analyze"/);
});
