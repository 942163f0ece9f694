// The injector's contract with the analyzer: in kprobe stacks captured on Debian's kernel with
// `--inject lockup:10:irq` (a saved lab capture, see test/fixtures/kernel-logs/SOURCES.md), the
// interrupted function is xrunhunt_inject_unlock [xrunhunt_inject] and it is ranked first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeText } from '../analysis/analyzer.js';
import { INJECTOR_MODULE, INJECTOR_UNLOCK_FUNCTION } from './injector.js';

const log = readFileSync(
  new URL(
    '../../test/fixtures/kernel-logs/lab-debian-6.1.0-57-amd64-kprobe-xrunhunt_inject-injection.txt',
    import.meta.url,
  ),
  'utf8',
);

test('Debian kprobe stacks with the injector: its unlock function is ranked first, 2x ahead', () => {
  const r = analyzeText(log);
  assert.equal(r.events.length, 225);
  const [top, second] = r.offenders;
  assert.ok(top, 'a ranked offender');
  assert.equal(top.function, INJECTOR_UNLOCK_FUNCTION);
  assert.equal(top.module, INJECTOR_MODULE);
  assert.equal(top.count, 35);
  assert.ok(
    !second || top.count >= 2 * second.count,
    `second: ${second?.function} ${second?.count}`,
  );
});
