import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../errors.js';
import { parseArgv, type ArgvOptionSpec } from './argv.js';

const SPECS: Record<string, ArgvOptionSpec> = {
  top: { type: 'string', valueName: 'N' },
  size: { type: 'string', valueName: 'SIZE' },
  device: { type: 'string', short: 'D', valueName: 'NAME' },
  duration: { type: 'string', short: 'd' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean', short: 'v' },
  by: { type: 'string', choices: ['kernel', 'driver', 'preempt', 'load'] },
  pcm: { type: 'string', multiple: true },
  'period-sizes': { type: 'string', deprecatedAliases: ['periods'] },
};

const usage = (re: RegExp) => (err: unknown) => err instanceof UsageError && re.test(err.message);

test('a string option takes a negative number as its value, not as an option (was "ambiguous")', () => {
  assert.deepEqual(parseArgv('aggregate', SPECS, ['--top', '-1']).values, { top: '-1' });
  assert.deepEqual(parseArgv('load', SPECS, ['--size', '-5M']).values, { size: '-5M' });
  assert.deepEqual(parseArgv('x', SPECS, ['-d', '-.5s']).values, { duration: '-.5s' });
});

test('long, long=value, short, attached short and grouped short options', () => {
  const r = parseArgv('play', SPECS, ['--top=5', '-Dhw:0,0', '-qv', '-d', '10s', 'file', '-']);
  assert.deepEqual(r.values, {
    top: '5',
    device: 'hw:0,0',
    quiet: true,
    verbose: true,
    duration: '10s',
  });
  assert.deepEqual(r.positionals, ['file', '-']);
  assert.deepEqual(parseArgv('play', SPECS, ['-qD', 'null']).values, {
    quiet: true,
    device: 'null',
  });
});

test('a negative number where no option expects one is an argument', () => {
  assert.deepEqual(parseArgv('x', SPECS, ['-5']).positionals, ['-5']);
});

test('an option word after a string option is refused with how to pass a dash value', () => {
  assert.throws(
    () => parseArgv('analyze', SPECS, ['--top', '--quiet']),
    usage(/--top needs a value \(N\), found the option "--quiet".*--top=--quiet/),
  );
  assert.throws(() => parseArgv('analyze', SPECS, ['--top']), usage(/--top needs a value \(N\)/));
  assert.throws(() => parseArgv('play', SPECS, ['-D']), usage(/-D needs a value \(NAME\)/));
});

test('unknown options name the closest known one', () => {
  assert.throws(
    () => parseArgv('analyze', SPECS, ['--verbos']),
    usage(/unknown option --verbos for analyze \(did you mean "--verbose"\?\)/),
  );
  assert.throws(
    () => parseArgv('analyze', SPECS, ['--zzzzzz']),
    (e: unknown) => e instanceof UsageError && !/did you mean/.test(e.message),
  );
  assert.throws(
    () => parseArgv('play', SPECS, ['-x']),
    usage(/unknown option -x for play \(short options: -D -d -q -v\)/),
  );
  assert.throws(() => parseArgv('play', SPECS, ['--quiet=yes']), usage(/--quiet takes no value/));
});

test('allowed values are checked by the parser, with a suggestion', () => {
  assert.deepEqual(parseArgv('aggregate', SPECS, ['--by', 'driver']).values, { by: 'driver' });
  assert.throws(
    () => parseArgv('aggregate', SPECS, ['--by', 'kernl']),
    usage(
      /invalid --by "kernl": expected one of kernel, driver, preempt, load \(did you mean "kernel"\?\)/,
    ),
  );
});

test('repeatable options collect, others keep the last value', () => {
  const r = parseArgv('watch', SPECS, ['--pcm', 'a', '--pcm=b', '--top', '1', '--top', '2']);
  assert.deepEqual(r.values, { pcm: ['a', 'b'], top: '2' });
});

test('a deprecated spelling maps to the new name and says so', () => {
  const r = parseArgv('stress', SPECS, ['--periods', '64,128']);
  assert.deepEqual(r.values, { 'period-sizes': '64,128' });
  assert.deepEqual(r.deprecations, [
    '--periods is deprecated for stress; use --period-sizes (same meaning)',
  ]);
});

test('control characters in an unknown option are escaped in the message', () => {
  assert.throws(
    () => parseArgv('x', SPECS, ['--\x1b[2Jfoo']),
    (e: unknown) =>
      e instanceof UsageError && !e.message.includes('\x1b') && e.message.includes('\\x1b'),
  );
});
