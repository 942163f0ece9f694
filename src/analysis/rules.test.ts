import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, copyFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRules, parseRuleList, RULE_LIST_NAMES, RULES_VERSION } from './rules.js';
import { XrunhuntError } from '../errors.js';

const rulesDir = fileURLToPath(new URL('./rules/', import.meta.url));

test('the shipped rule lists load and every list is non-empty', () => {
  const rules = loadRules();
  for (const name of RULE_LIST_NAMES) assert.ok(rules[name].size > 0, name);
  assert.match(RULES_VERSION, /^\d+\.\d+\.\d+$/);
  assert.equal(rules.printer.matchFunction('dump_stack_lvl'), true);
  assert.equal(rules.printer.matchFunction('dump_stack_lvlx'), false, 'whole-name match');
  assert.equal(rules['audio-driver'].matchModule('snd_hda_intel'), true);
  assert.equal(rules['audio-driver'].matchModule('ext4'), false);
  assert.equal(rules.primitives.matchFunction('_raw_spin_unlock_irqrestore'), true);
  assert.equal(rules.idle.matchFunction('amd_e400_idle'), true);
});

test('comments and blank lines are ignored; module: lines match modules', () => {
  const l = parseRuleList('x', '# comment\n\nfoo_\\w+   # trailing comment\nmodule:snd_.*\n');
  assert.equal(l.size, 2);
  assert.equal(l.matchFunction('foo_bar'), true);
  assert.equal(l.matchFunction('snd_x'), false);
  assert.equal(l.matchModule('snd_x'), true);
});

test('a bad regex is reported with file:line', () => {
  assert.throws(
    () => parseRuleList('idle', 'cpu_idle\n# fine\nbroken(\n', 'idle.txt'),
    (err: unknown) =>
      err instanceof XrunhuntError &&
      /^idle\.txt:3: invalid rule regex "broken\("/.test(err.message),
  );
  // The same through loadRules() on a directory with one broken list.
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-rules-'));
  try {
    for (const f of readdirSync(rulesDir))
      if (f.endsWith('.txt')) copyFileSync(join(rulesDir, f), join(dir, f));
    writeFileSync(join(dir, 'primitives.txt'), '_raw_spin_unlock\n[unclosed\n');
    assert.throws(
      () => loadRules(dir),
      (err: unknown) => err instanceof XrunhuntError && err.message.includes('primitives.txt:2:'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
