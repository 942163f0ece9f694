// The knob probe on the real run lifecycle over a fake tree: set during the run, put back at
// its end and when the run fails (Ctrl-C takes the same finally), journaled in a file the
// trust check accepts, and — after kill -9 in the middle of a B round — put back by the next
// run's start (beginSettingsRun), as xrun_debug is.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  beginSettingsRun,
  judgeJournalEntries,
  readJournalFile,
  realSettingFileIo,
  sessionPartJournalFile,
} from '../proc/index.js';
import { bracketedChoice as bracketed } from './knobs/contract.js';
import { runLifecycle } from '../run/lifecycle.js';
import type { RunContext } from '../run/probe.js';
import { createRunNotes } from '../run/run-notes.js';
import { createTryKnobTree, TRY_ORIGINALS } from '../../test/helpers/try-knob-tree.js';
import { createKnobProbe } from './knob-probe.js';
import { resolveKnobs, type KnobEnv } from './knobs/index.js';

const SPECS = [
  'scheduler.sda=bfq',
  'vm.dirty_bytes=64M',
  'vm.swappiness=10',
  'irq.affinity=2',
  'cpufreq.governor=performance',
  'thp=never',
];

const cleanups: (() => void)[] = [];
after(() => cleanups.forEach((c) => c()));

function setup() {
  const tree = createTryKnobTree();
  const journalDir = mkdtempSync(join(tmpdir(), 'xrunhunt-try-journal-'));
  cleanups.push(() => {
    tree.cleanup();
    rmSync(journalDir, { recursive: true, force: true });
  });
  const env: KnobEnv = {
    procRoot: tree.procRoot,
    sysRoot: tree.sysRoot,
    devRoot: tree.devRoot,
    io: realSettingFileIo,
  };
  const read = (root: string, rel: string): string => readFileSync(join(root, rel), 'utf8').trim();
  const values = () => ({
    scheduler: bracketed(read(tree.sysRoot, 'block/sda/queue/scheduler')),
    dirtyBytes: read(tree.procRoot, 'sys/vm/dirty_bytes'),
    dirtyRatio: read(tree.procRoot, 'sys/vm/dirty_ratio'),
    swappiness: read(tree.procRoot, 'sys/vm/swappiness'),
    affinity: read(tree.procRoot, 'irq/33/smp_affinity_list'),
    governor: read(tree.sysRoot, 'devices/system/cpu/cpu3/cpufreq/scaling_governor'),
    thp: bracketed(read(tree.sysRoot, 'kernel/mm/transparent_hugepage/enabled')),
  });
  const lifecycle = {
    journalDir,
    roots: { procRoot: tree.procRoot, sysRoot: tree.sysRoot, bootRoot: tree.bootRoot },
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    interactive: false,
  };
  return { tree, journalDir, env, values, lifecycle };
}

const original = {
  scheduler: 'mq-deadline',
  dirtyBytes: '0',
  dirtyRatio: TRY_ORIGINALS.dirtyRatio.trim(),
  swappiness: '60',
  affinity: '0-3',
  governor: 'schedutil',
  thp: 'madvise',
};
// The fake tree has no kernel side effects: restoring dirty_ratio does not zero dirty_bytes
// there, so the bytes keep the value written (the kernel would zero them).
const restoredInFakeTree = { ...original, dirtyBytes: '67108864' };
const changed = {
  scheduler: 'bfq',
  dirtyBytes: '67108864',
  dirtyRatio: '20',
  swappiness: '10',
  affinity: '2',
  governor: 'performance',
  thp: 'never',
};

function context(): RunContext {
  const ctl = new AbortController();
  return {
    t0: 0n,
    elapsed: () => 0,
    stop: ctl.signal,
    requestStop: () => ctl.abort(),
    notes: createRunNotes({
      emitWarning: () => undefined,
      progress: false,
      stderr: new PassThrough(),
    }),
  };
}

test('a B round sets every knob during the run and puts each back after it', async () => {
  const s = setup();
  assert.deepEqual(s.values(), original);
  const changes = resolveKnobs(SPECS, s.env);
  let during: ReturnType<typeof s.values> | null = null;
  let journaled: string[] = [];
  const held: string[] = [];
  const probe = createKnobProbe({
    changes: [...changes, ...resolveKnobs(['cpu.max_latency_us=0'], s.env)],
    journalDir: s.journalDir,
    toolVersion: 'test',
    io: realSettingFileIo,
    hold: (r) => {
      held.push(`open ${r.path} ${r.bytes.toString('hex')}`);
      return () => held.push(`close ${r.path}`);
    },
  });
  await runLifecycle(context(), s.lifecycle, [probe], {
    run: async () => {
      during = s.values();
      const file = sessionPartJournalFile(s.journalDir, process.pid, 'try');
      journaled = readJournalFile(file)!.entries.map((e) => e.path);
      const verdict = judgeJournalEntries(readJournalFile(file)!.entries, s.lifecycle.roots);
      assert.equal(verdict.trusted, true, JSON.stringify(verdict));
    },
    analyze: async () => undefined,
  });
  assert.deepEqual(during, changed);
  // dirty_ratio journaled, dirty_bytes not (restoring the ratio zeroes them in the kernel).
  assert.equal(journaled.length, 1 + 1 + 1 + 1 + 4 + 1);
  assert.ok(journaled.some((p) => p.endsWith('sys/vm/dirty_ratio')));
  assert.ok(!journaled.some((p) => p.endsWith('sys/vm/dirty_bytes')));
  assert.deepEqual(s.values(), restoredInFakeTree);
  const dev = join(s.tree.devRoot, 'cpu_dma_latency');
  assert.deepEqual(held, [`open ${dev} 00000000`, `close ${dev}`]);
  assert.deepEqual(readdirSync(s.journalDir), [], 'the journal is gone after the restore');
});

test('a run that fails after the knobs were applied still puts them back', async () => {
  const s = setup();
  const probe = createKnobProbe({
    changes: resolveKnobs(['vm.swappiness=1', 'thp=never'], s.env),
    journalDir: s.journalDir,
    toolVersion: 'test',
    io: realSettingFileIo,
  });
  await assert.rejects(
    runLifecycle(context(), s.lifecycle, [probe], {
      run: async () => {
        assert.equal(s.values().swappiness, '1');
        throw new Error('interrupted');
      },
      analyze: async () => undefined,
    }),
    /interrupted/,
  );
  assert.equal(s.values().swappiness, '60');
  assert.equal(s.values().thp, 'madvise');
});

test('kill -9 in the middle of a B round: the next start restores every knob', async () => {
  const s = setup();
  const here = (f: string): string => pathToFileURL(join(import.meta.dirname, f)).href;
  const child = join(s.journalDir, '..', `xrunhunt-try-child-${process.pid}.mts`);
  cleanups.push(() => rmSync(child, { force: true }));
  writeFileSync(
    child,
    `import { PassThrough } from 'node:stream';
import { realSettingFileIo } from ${JSON.stringify(here('../proc/index.ts'))};
import { runLifecycle } from ${JSON.stringify(here('../run/lifecycle.ts'))};
import { createRunNotes } from ${JSON.stringify(here('../run/run-notes.ts'))};
import { createKnobProbe } from ${JSON.stringify(here('knob-probe.ts'))};
import { resolveKnobs } from ${JSON.stringify(here('knobs/index.ts'))};
const [procRoot, sysRoot, devRoot, bootRoot, journalDir, specs] = process.argv.slice(2);
const env = { procRoot, sysRoot, devRoot, io: realSettingFileIo };
const probe = createKnobProbe({ changes: resolveKnobs(JSON.parse(specs), env), journalDir, toolVersion: 'test', io: realSettingFileIo });
const ctl = new AbortController();
const ctx = { t0: 0n, elapsed: () => 0, stop: ctl.signal, requestStop: () => ctl.abort(),
  notes: createRunNotes({ emitWarning: () => undefined, progress: false, stderr: new PassThrough() }) };
await runLifecycle(ctx, { journalDir, roots: { procRoot, sysRoot, bootRoot }, stderr: process.stderr, stdin: new PassThrough(), interactive: false }, [probe], {
  run: () => { process.stdout.write('applied\\n'); return new Promise(() => setInterval(() => {}, 1000)); },
  analyze: async () => undefined,
});
`,
  );
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      child,
      s.tree.procRoot,
      s.tree.sysRoot,
      s.tree.devRoot,
      s.tree.bootRoot,
      s.journalDir,
      JSON.stringify(SPECS),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: join(import.meta.dirname, '..', '..') },
  );
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`child did not apply in 60 s: ${err}`)), 60_000);
    proc.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('applied')) {
        clearTimeout(t);
        resolve();
      }
    });
    proc.on('exit', (code) => reject(new Error(`child exited ${code}: ${err}`)));
  });
  assert.deepEqual(s.values(), changed);
  const exited = new Promise((r) => proc.on('exit', r));
  proc.kill('SIGKILL');
  await exited;
  // Still changed: nobody restored them (the kill left no chance).
  assert.deepEqual(s.values(), changed);
  const file = sessionPartJournalFile(s.journalDir, proc.pid!, 'try');
  assert.ok(existsSync(file), 'the killed run left its journal');
  const stderr = new PassThrough();
  let said = '';
  stderr.on('data', (d: Buffer) => (said += d.toString()));
  const begun = await beginSettingsRun({
    roots: { procRoot: s.tree.procRoot, sysRoot: s.tree.sysRoot },
    searchDirs: [s.journalDir],
    command: 'try',
    stderr,
    stdin: new PassThrough(),
    interactive: false,
  });
  begun.lock.release();
  assert.equal(begun.pending.restored.length, 1, said);
  assert.deepEqual(begun.pending.restored[0]!.report.failed, []);
  assert.deepEqual(s.values(), restoredInFakeTree);
  assert.ok(!existsSync(file), 'the restored journal is removed');
});
