// JUnit XML: one case per phase, failed with xruns and the phase's top offender in the
// message; counts in the suite; outside text (kernel names) cannot break the XML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionReport } from '../session/report-model.js';
import { phaseCases, renderJunit, xmlText } from './junit.js';

const phase = (name: string, startMs: number, xruns: number, kernelEvents: number) => ({
  name,
  kind: name,
  startMs,
  endMs: startMs + 10_000,
  xruns,
  xrunsPerMin: xruns * 6,
  kernelEvents,
  throughput: null,
  headroom: null,
});

const report = {
  conclusion: ['9 of 12 xruns happened while ext4 wrote back pages'],
  phases: [phase('idle', 0, 0, 0), phase('write', 10_000, 3, 3)],
  offenders: [
    {
      function: 'test_unlock',
      module: 'test_lockup',
      signature: 's1',
      count: 1,
      share: 0.3,
      phases: { write: 1 },
    },
    {
      function: '__filemap_add_folio',
      module: null,
      signature: 's2',
      count: 2,
      share: 0.6,
      phases: { write: 2 },
    },
  ],
} as unknown as SessionReport;

test('a case per phase: the quiet one passes, the one with xruns fails naming its top offender', () => {
  const cases = phaseCases(report, 'xrunhunt.session');
  assert.deepEqual(
    cases.map((c) => [c.name, c.timeSec, c.failure?.message ?? null]),
    [
      ['idle', 10, null],
      ['write', 10, '3 xrun(s) in write; top offender __filemap_add_folio (2 dump(s))'],
    ],
  );
  const xml = renderJunit('xrunhunt session hw:0,0', cases, 20);
  assert.match(
    xml,
    /<testsuite name="xrunhunt session hw:0,0" tests="2" failures="1" errors="0" skipped="0" time="20.000">/,
  );
  assert.match(xml, /<testcase name="idle" classname="xrunhunt.session" time="10.000"\/>/);
  assert.match(
    xml,
    /<failure message="3 xrun\(s\) in write; top offender __filemap_add_folio \(2 dump\(s\)\)" type="xruns">/,
  );
  assert.match(xml, /9 of 12 xruns happened while ext4 wrote back pages<\/failure>/);
});

test('outside text is escaped: markup, quotes, control characters, lone surrogates', () => {
  assert.equal(xmlText('a<b>&"c\''), 'a&lt;b&gt;&amp;&quot;c&apos;');
  assert.equal(xmlText('x\u001b[2Jy\u0000'), 'x\\x1b[2Jy\\x00');
  assert.equal(xmlText('bad\ud800end \ud83d\ude00'), 'bad\ufffdend \ud83d\ude00');
  const xml = renderJunit(
    'suite',
    [
      {
        name: '</testcase><x>',
        classname: 'c',
        timeSec: 0,
        failure: null,
        skipped: 'not run',
        error: null,
      },
    ],
    0,
  );
  assert.match(xml, /name="&lt;\/testcase&gt;&lt;x&gt;"/);
  assert.match(xml, /<skipped message="not run"\/>/);
  assert.match(xml, /skipped="1"/);
});
