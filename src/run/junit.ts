// JUnit XML for the CI systems that run stress tests on real hardware (Jenkins, GitLab,
// LAVA): one test case per phase of a session or watch, or per cell of a stress matrix,
// failed when it had xruns, with the top offender in the failure message. Pure: values in,
// XML text out. Every string is outside text at heart (kernel function names come from the
// log), so it is escaped for the terminal first and for XML second.
import { escapeControlChars } from '../text/untrusted-text.js';
import { offenderName } from '../session/report-build.js';
import type { SessionReport } from '../session/report-model.js';

export interface JunitCase {
  name: string;
  classname: string;
  timeSec: number;
  /** Set: the case failed (it had xruns). */
  failure: { message: string; detail: string } | null;
  /** Set: the case did not run, and why. */
  skipped: string | null;
  /** Set: the case could not run because of an error. */
  error: string | null;
}

/** Escapes text for an XML attribute or element (control characters made visible first). */
export function xmlText(text: string): string {
  return (
    escapeControlChars(text)
      // Lone surrogates and the two non-characters XML 1.0 does not allow.
      .replace(
        /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g,
        '\ufffd',
      )
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/** Renders one test suite. */
export function renderJunit(suite: string, cases: readonly JunitCase[], timeSec: number): string {
  const failures = cases.filter((c) => c.failure).length;
  const errors = cases.filter((c) => c.error !== null).length;
  const skipped = cases.filter((c) => c.skipped !== null).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="xrunhunt" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${timeSec.toFixed(3)}">`,
    `  <testsuite name="${xmlText(suite)}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${timeSec.toFixed(3)}">`,
  ];
  for (const c of cases) {
    const open = `    <testcase name="${xmlText(c.name)}" classname="${xmlText(c.classname)}" time="${c.timeSec.toFixed(3)}"`;
    const body: string[] = [];
    if (c.failure)
      body.push(
        `      <failure message="${xmlText(c.failure.message)}" type="xruns">${xmlText(c.failure.detail)}</failure>`,
      );
    if (c.error !== null) body.push(`      <error message="${xmlText(c.error)}" type="error"/>`);
    if (c.skipped !== null) body.push(`      <skipped message="${xmlText(c.skipped)}"/>`);
    lines.push(body.length ? `${open}>` : `${open}/>`, ...body);
    if (body.length) lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

/** The offender that interrupted kernel code most often in `phase` (null: none). */
function topOffenderIn(
  report: SessionReport,
  phase: string,
): { name: string; count: number } | null {
  let best: { name: string; count: number } | null = null;
  for (const o of report.offenders) {
    const n = o.phases[phase] ?? 0;
    if (n > 0 && (best === null || n > best.count)) best = { name: offenderName(o), count: n };
  }
  return best;
}

/** One case per phase of a session or watch report: failed when the phase had xruns. */
export function phaseCases(report: SessionReport, classname: string): JunitCase[] {
  return report.phases.map((ph) => {
    const top = topOffenderIn(report, ph.name);
    const failed = ph.xruns > 0;
    const message = failed
      ? `${ph.xruns} xrun(s) in ${ph.name}${top ? `; top offender ${top.name} (${top.count} dump(s))` : '; no kernel offender captured'}`
      : '';
    return {
      name: ph.name,
      classname,
      timeSec: Math.max(0, (ph.endMs - ph.startMs) / 1000),
      failure: failed
        ? {
            message,
            detail: [message, `kernel events: ${ph.kernelEvents}`, ...report.conclusion].join('\n'),
          }
        : null,
      skipped: null,
      error: null,
    };
  });
}
