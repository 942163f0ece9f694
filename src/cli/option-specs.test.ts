// Every command's option declaration, checked as a whole: what the parser, --help, completion
// and the man page all rely on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMON_OPTIONS, type OptionSpecs } from './command.js';
import { flattenCatalog, loadAllEntries } from './command-catalog.js';

const commands = flattenCatalog(await loadAllEntries());

test('short options are unique per command and never shadow -h / -q', () => {
  for (const { words, command } of commands) {
    const all: OptionSpecs = { ...(command.options as OptionSpecs), ...COMMON_OPTIONS };
    const shorts = Object.values(all).flatMap((s) => (s.short ? [s.short] : []));
    assert.equal(new Set(shorts).size, shorts.length, `${words.join(' ')}: ${shorts.join(' ')}`);
    for (const name of Object.keys(COMMON_OPTIONS)) {
      assert.equal(
        name in (command.options as OptionSpecs),
        false,
        `${words.join(' ')} redeclares --${name}`,
      );
    }
  }
});

test('defaults are among the allowed values; deprecated spellings are not option names', () => {
  for (const { words, command } of commands) {
    const opts = command.options as OptionSpecs;
    for (const [name, spec] of Object.entries(opts)) {
      if (spec.choices && typeof spec.default === 'string') {
        assert.ok(spec.choices.includes(spec.default), `${words.join(' ')} --${name}`);
      }
      for (const alias of spec.deprecatedAliases ?? []) {
        assert.equal(alias in opts, false, `${words.join(' ')} --${alias}`);
      }
    }
  }
});

test('the conventional letters mean the same thing wherever they appear', () => {
  const meaning: Record<string, string> = {
    D: 'device',
    d: 'duration',
    p: 'rt-priority',
    a: 'cpu',
  };
  for (const { words, command } of commands) {
    for (const [name, spec] of Object.entries(command.options as OptionSpecs)) {
      const want = spec.short ? meaning[spec.short] : undefined;
      if (want) assert.equal(name, want, `${words.join(' ')} -${spec.short}`);
    }
  }
});
