// The generated scripts, run by a real bash against the real command catalogue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OptionSpecs } from './command.js';
import { flattenCatalog, loadAllEntries } from './command-catalog.js';
import { renderBashCompletion, renderZshCompletion } from './completion-script.js';

const entries = await loadAllEntries();

/** What bash completes for `xrunhunt <line>` (a trailing space starts a new word). */
function complete(script: string, line: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-compl-'));
  try {
    const file = join(dir, 'xrunhunt.bash');
    writeFileSync(file, script);
    const words = ['xrunhunt', ...line.split(' ')];
    const cmd = [
      `source ${JSON.stringify(file)}`,
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
      `COMP_CWORD=${words.length - 1}`,
      '_xrunhunt',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    return execFileSync('bash', ['--norc', '-c', cmd], { cwd: dir, encoding: 'utf8' })
      .split('\n')
      .filter((w) => w !== '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('bash: commands, subcommands, options and allowed values complete', () => {
  const s = renderBashCompletion(entries);
  assert.deepEqual(complete(s, 'agg'), ['aggregate']);
  assert.deepEqual(complete(s, 'lab b'), ['build']);
  assert.deepEqual(complete(s, 'analyze --form'), ['--format']);
  assert.deepEqual(complete(s, 'analyze --format m').sort(), ['markdown', 'md']);
  assert.deepEqual(complete(s, 'lab run --accel ').sort(), ['auto', 'kvm', 'tcg']);
  assert.deepEqual(complete(s, 'stress --period-'), ['--period-sizes']);
  assert.ok(complete(s, 'play -').includes('-D'));
  assert.ok(complete(s, 'play -').includes('--quiet'));
});

test('bash: every option of every command is offered, deprecated spellings are not', () => {
  const s = renderBashCompletion(entries);
  for (const { words, command } of flattenCatalog(entries)) {
    const offered = new Set(complete(s, `${words.join(' ')} --`));
    for (const [name, spec] of Object.entries(command.options as OptionSpecs)) {
      assert.ok(offered.has(`--${name}`), `${words.join(' ')} --${name}`);
      for (const a of spec.deprecatedAliases ?? []) assert.equal(offered.has(`--${a}`), false);
    }
  }
});

test('zsh: one _arguments block per command with every option and choice list', () => {
  const s = renderZshCompletion(entries);
  assert.match(s, /^#compdef xrunhunt\n/);
  for (const { words, command } of flattenCatalog(entries)) {
    const start = s.indexOf(`    '${words.join(' ')}')\n`);
    assert.notEqual(start, -1, words.join(' '));
    const block = s.slice(start, s.indexOf(';;', start));
    for (const [name, spec] of Object.entries(command.options as OptionSpecs)) {
      assert.ok(block.includes(`--${name}`), `${words.join(' ')} --${name}`);
      if (spec.choices) assert.ok(block.includes(`(${spec.choices.join(' ')})`));
    }
    // Descriptions cannot break the single-quoted specs.
    for (const line of block.split('\n').slice(2)) {
      assert.equal((line.match(/'/g) ?? []).length % 2, 0, line);
    }
  }
});
