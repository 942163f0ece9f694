// The kprobe backend through the real CLI on this host: crash recovery of a kprobe journal
// (`debug restore` on a journal a killed session left), what a session says when the kernel
// has no tracefs/kprobes, and `analyze` of saved trace_pipe text from the stock lab kernel.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoRoot, runCli } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-kprobe-e2e-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A pid no process has (pid_max is at most 2^22): the journal's owner is dead. */
const DEAD_PID = 4_194_304 + 17;

test('debug restore undoes a killed session’s kprobe journal: appends the removal, never truncates, removes the instance', async () => {
  // Plain files stand in for tracefs (under a fake --sys-root: restore refuses paths outside it).
  const sysRoot = join(work, 'sys');
  const fakeTracefs = join(sysRoot, 'kernel', 'tracing');
  const instance = join(fakeTracefs, 'instances', 'xrunhunt');
  mkdirSync(instance, { recursive: true });
  const kprobeEvents = join(fakeTracefs, 'kprobe_events');
  writeFileSync(kprobeEvents, 'p:someone/else do_sys_open\n');
  const state = join(work, 'state');
  mkdirSync(join(state, 'xrunhunt'), { recursive: true });
  const journal = join(state, 'xrunhunt', `session-${DEAD_PID}-kprobe.json`);
  const at = new Date().toISOString();
  writeFileSync(
    journal,
    JSON.stringify({
      format: 'xrunhunt-settings-journal',
      version: 1,
      owner: {
        pid: DEAD_PID,
        startTicks: 1,
        startedAt: at,
        toolVersion: 'test',
        command: 'session --capture kprobe',
        temporary: true,
      },
      entries: [
        { path: kprobeEvents, original: '-:xrunhunt/xrun', kind: 'append', recordedAt: at },
        { path: instance, original: '', kind: 'rmdir', recordedAt: at },
      ],
    }),
  );
  const r = await runCli(['debug', 'restore', '--json', '--sys-root', sysRoot], {
    env: { XDG_STATE_HOME: state },
  });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { restored: { path: string }[]; failed: unknown[] };
  assert.deepEqual(out.failed, []);
  assert.deepEqual(
    out.restored.map((x) => x.path),
    [instance, kprobeEvents],
    'the instance goes first, then the probe (the kernel refuses the other order)',
  );
  assert.equal(existsSync(instance), false);
  assert.equal(
    readFileSync(kprobeEvents, 'utf8'),
    'p:someone/else do_sys_open\n-:xrunhunt/xrun',
    'appended, other probes kept',
  );
  assert.equal(existsSync(journal), false);
});

test(
  'session --capture kprobe without tracefs: says why, still measures userspace xruns',
  {
    skip: existsSync('/sys/kernel/tracing/kprobe_events')
      ? 'this host has kprobe events (the lab tests cover the working path)'
      : false,
  },
  async () => {
    const out = join(work, 'session');
    const r = await runCli(
      [
        'session',
        '--device',
        'null',
        '--phases',
        'idle:1s',
        '--capture',
        'kprobe',
        '--out',
        out,
        '--json',
      ],
      { timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as {
      kernelCapture: { source: string };
      warnings: string[];
    };
    assert.equal(report.kernelCapture.source, 'none');
    assert.ok(
      report.warnings.some((w) =>
        /kprobe: (tracefs is not mounted|needs root|.*kprobe_events)/.test(w),
      ),
      report.warnings.join('\n'),
    );
    const bundle = JSON.parse(gunzipSync(readFileSync(join(out, 'bundle.json.gz'))).toString()) as {
      params: { captureBackend: string };
    };
    assert.equal(bundle.params.captureBackend, 'none');
  },
);

test('session --capture with an unknown backend names kprobe among the choices', async () => {
  const r = await runCli(['session', '--device', 'null', '--capture', 'probe']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /expected one of auto, xrun_debug, kprobe, none.*did you mean "kprobe"/);
});

test('analyze reads saved trace_pipe text of the kprobe backend: streams, classes, kernel offenders', async () => {
  const fixture = join(
    repoRoot,
    'test/fixtures/kernel-logs/lab-stock-6.1-x86_64-kprobe-trace_pipe-io-classes.txt',
  );
  const r = await runCli(['analyze', fixture, '--json']);
  assert.equal(r.code, 2, r.stderr); // xruns found
  const out = JSON.parse(r.stdout) as {
    events: { kind: string; pcm: string | null; offender: { class: string } }[];
    offenders: { function: string; count: number }[];
  };
  assert.equal(out.events.length, 12);
  assert.ok(out.events.every((e) => e.kind === 'xrun' && e.pcm === 'pcmC0D0p/sub0'));
  const classes = new Map<string, number>();
  for (const e of out.events)
    classes.set(e.offender.class, (classes.get(e.offender.class) ?? 0) + 1);
  // The three process-context ones are the player's own write ioctl (__snd_pcm_lib_xfer):
  // their stacks name the detector, so they are detector-only, never ranked.
  assert.deepEqual(Object.fromEntries(classes), {
    user: 3,
    'detector-only': 3,
    kernel: 3,
    idle: 3,
  });
  assert.deepEqual(
    out.offenders.map((o) => [o.function, o.count]),
    [
      ['smp_call_function_many_cond', 2],
      ['mas_wmb_replace', 1],
    ],
  );
});
