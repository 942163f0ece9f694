// Re-runs the attack classes of issue 14 against the built CLI (bin/xrunhunt.js) and prints,
// per finding, how many variants were tried and how many the code did not withstand, with one
// line per failure saying what happened. Not a test: a verification run for the issue's note.
// Everything happens in temporary folders and on loopback; every loop is bounded.
// Usage: node --import tsx bench/attack-issue14.ts [--only N[,N...]] [--list]   (needs `npm run build`;
// --list also prints every case that held; sections: 1 2 3 16 4 14 7 8)
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createScrubber } from '../src/bundle/scrub.js';
import { gatherScrubKnown } from '../src/bundle/scrub-known.js';
import { scrubBundleFolder } from '../src/bundle/scrub-folder.js';
import {
  createFakeSystem,
  dummyCard,
  hdaCard,
  type FakeSystem,
} from '../test/helpers/fake-proc.js';

const repo = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(repo, 'bin/xrunhunt.js');
const NOBODY = 65534;
/** Above pid_max's ceiling (4194304): never a live process. */
const DEAD_PID = 4_194_304 + 99;
const args = process.argv.slice(2);
const onlyArg = args.indexOf('--only');
const only =
  onlyArg === -1 ? null : new Set((args[onlyArg + 1] ?? '').split(',').map((s) => s.trim()));
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-attack14-'));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion (killed after timeoutMs: a hang is a result too). */
function cli(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 30_000,
  input = '',
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      env: { ...process.env, CI: 'true', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

const stackTrace = (s: string): boolean => /^\s+at .*(\.js|\.ts):\d+/m.test(s);
const short = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, 220);

interface Tally {
  finding: string;
  tried: number;
  failures: string[];
  passed: string[];
}
const tallies: Tally[] = [];
function tally(finding: string): Tally {
  const t: Tally = { finding, tried: 0, failures: [], passed: [] };
  tallies.push(t);
  return t;
}
/** Records one case: `problem` null means the code withstood it. */
function record(t: Tally, name: string, problem: string | null): void {
  t.tried++;
  if (problem) t.failures.push(`${name}: ${problem}`);
  else t.passed.push(name);
}

/** Problems common to every run: a hang, a crash, a stack trace. */
function runProblem(r: Run): string | null {
  if (r.signal) return `killed by ${r.signal} (hung past the bound)`;
  if (stackTrace(r.stderr)) return `stack trace: ${short(r.stderr)}`;
  if (r.code !== 0 && r.code !== 1 && r.code !== 2) return `exit ${r.code}`;
  return null;
}

// ---------------------------------------------------------------- journal (1, 2, 3, 16)

const STREAMS = ['card0/pcm0p', 'card0/pcm0c', 'card1/pcm0p', 'card1/pcm0c', 'card1/pcm3p'];
const ORIGINALS = ['1', '0', '2', '5', '7'];

interface JournalBed {
  fake: FakeSystem;
  state: string;
  jdir: string;
  env: NodeJS.ProcessEnv;
  root: string[];
  victim: string;
  victimDir: string;
  masks(): string[];
  cleanup(): void;
}

function journalBed(): JournalBed {
  const fake = createFakeSystem({
    cards: [dummyCard({}, 0), hdaCard({}, 0)],
    proc: { 'sys/kernel/osrelease': '6.1.192-lab\n' },
  });
  STREAMS.forEach((p, i) => fake.writeProc(`asound/${p}/xrun_debug`, `${ORIGINALS[i]}\n`));
  const state = mkdtempSync(join(work, 'state-'));
  const jdir = join(state, 'xrunhunt');
  const victim = join(fake.base, 'victim');
  writeFileSync(victim, 'precious\n');
  const victimDir = join(fake.base, 'victim-dir');
  mkdirSync(victimDir);
  writeFileSync(join(victimDir, 'keep'), 'k');
  return {
    fake,
    state,
    jdir,
    env: { XDG_STATE_HOME: state },
    root: ['--proc-root', fake.procRoot, '--sys-root', fake.sysRoot],
    victim,
    victimDir,
    masks: () => STREAMS.map((p) => fake.readProc(`asound/${p}/xrun_debug`).trim()),
    cleanup: () => {
      fake.cleanup();
      rmSync(state, { recursive: true, force: true });
    },
  };
}

function journalText(
  entries: { path: string; original: string; kind: string }[],
  owner: Partial<Record<string, unknown>> = {},
): string {
  const at = new Date().toISOString();
  return JSON.stringify({
    format: 'xrunhunt-settings-journal',
    version: 1,
    owner: {
      pid: DEAD_PID,
      startTicks: 1,
      startedAt: at,
      toolVersion: 'x',
      command: 'session',
      temporary: true,
      ...owner,
    },
    entries: entries.map((e) => ({ ...e, recordedAt: at })),
  });
}

/** The victim file and folder are untouched, and nothing of the fake tree was set to 'X'. */
function harm(b: JournalBed): string | null {
  if (!existsSync(b.victim)) return 'the victim file was removed';
  const v = readFileSync(b.victim, 'utf8');
  if (v !== 'precious\n') return `the victim file now holds ${JSON.stringify(v.slice(0, 40))}`;
  if (!existsSync(join(b.victimDir, 'keep'))) return 'the victim folder was removed';
  return null;
}

async function attackJournalTrust(): Promise<void> {
  const t = tally('1 journal paths trusted');
  type Plant = (b: JournalBed) => void;
  const ok = (b: JournalBed) => b.fake.proc('asound/card0/pcm0p/xrun_debug');
  const write = (b: JournalBed, name: string, text: string, mode = 0o600) => {
    mkdirSync(b.jdir, { recursive: true, mode: 0o700 });
    writeFileSync(join(b.jdir, name), text, { mode });
    chmodSync(join(b.jdir, name), mode);
  };
  const victimEntry = (b: JournalBed) => [{ path: b.victim, original: 'X', kind: 'xrun_debug' }];
  const sessionName = `session-${DEAD_PID}.json`;

  // entries that must be refused even in a perfectly owned folder
  const entryVariants: [
    string,
    (b: JournalBed) => { path: string; original: string; kind: string }[],
  ][] = [
    ['absolute path outside', (b) => victimEntry(b)],
    ['relative path', () => [{ path: 'victim', original: 'X', kind: 'xrun_debug' }]],
    [
      '.. out of the proc root',
      (b) => [
        {
          path: `${b.fake.procRoot}/asound/card0/pcm0p/../../../victim`,
          original: 'X',
          kind: 'xrun_debug',
        },
      ],
    ],
    [
      '.. looking like xrun_debug',
      (b) => [
        {
          path: `${b.fake.procRoot}/../victim/../proc/asound/card0/pcm0p/../../../victim`,
          original: '1',
          kind: 'xrun_debug',
        },
      ],
    ],
    [
      'symlinked xrun_debug inside the proc root pointing out',
      (b) => {
        mkdirSync(b.fake.proc('asound/card9/pcm0p'), { recursive: true });
        symlinkSync(b.victim, b.fake.proc('asound/card9/pcm0p/xrun_debug'));
        return [
          { path: b.fake.proc('asound/card9/pcm0p/xrun_debug'), original: '3', kind: 'xrun_debug' },
        ];
      },
    ],
    [
      'symlinked card folder pointing out',
      (b) => {
        mkdirSync(join(b.fake.base, 'outside/pcm0p'), { recursive: true });
        writeFileSync(join(b.fake.base, 'outside/pcm0p/xrun_debug'), 'precious\n');
        symlinkSync(b.victim, join(b.fake.base, 'outside/pcm0p/xrun_debug2'));
        symlinkSync(join(b.fake.base, 'outside'), b.fake.proc('asound/card8'));
        // the victim for this case is the outside file itself
        rmSync(b.victim);
        symlinkSync(join(b.fake.base, 'outside/pcm0p/xrun_debug'), b.victim);
        return [
          { path: b.fake.proc('asound/card8/pcm0p/xrun_debug'), original: '3', kind: 'xrun_debug' },
        ];
      },
    ],
    [
      'symlinked asound folder pointing out',
      (b) => {
        mkdirSync(join(b.fake.base, 'fakeproc2/asound/card0/pcm0p'), { recursive: true });
        const f = join(b.fake.base, 'fakeproc2/asound/card0/pcm0p/xrun_debug');
        writeFileSync(f, 'precious\n');
        rmSync(b.victim);
        symlinkSync(f, b.victim);
        mkdirSync(b.fake.proc('x'), { recursive: true });
        symlinkSync(join(b.fake.base, 'fakeproc2/asound'), b.fake.proc('x/asound'));
        return [
          {
            path: b.fake.proc('x/asound/card0/pcm0p/xrun_debug'),
            original: '3',
            kind: 'xrun_debug',
          },
        ];
      },
    ],
    [
      "another tree's xrun_debug (foreign proc root)",
      (b) => {
        const other = join(b.fake.base, 'other/asound/card0/pcm0p');
        mkdirSync(other, { recursive: true });
        writeFileSync(join(other, 'xrun_debug'), 'precious\n');
        rmSync(b.victim);
        symlinkSync(join(other, 'xrun_debug'), b.victim);
        return [{ path: join(other, 'xrun_debug'), original: '3', kind: 'xrun_debug' }];
      },
    ],
    ...(['append', 'rmdir', 'value', 'XRUN_DEBUG', ''] as const).map(
      (kind): [string, (b: JournalBed) => { path: string; original: string; kind: string }[]] => [
        `xrun_debug path with kind "${kind}"`,
        (b) => [{ path: ok(b), original: kind === 'rmdir' ? '' : '-:xrunhunt/xrun', kind }],
      ],
    ),
    ...(['X', '-1', '4294967296', '1\n2', '', ' 1', '0x3', '1e3', '9'.repeat(5000)] as const).map(
      (orig): [string, (b: JournalBed) => { path: string; original: string; kind: string }[]] => [
        `xrun_debug original ${JSON.stringify(orig.slice(0, 12))}${orig.length > 12 ? '…' : ''}`,
        (b) => [{ path: ok(b), original: orig, kind: 'xrun_debug' }],
      ],
    ),
    ...(['append', 'value', 'rmdir'] as const).map(
      (kind): [string, (b: JournalBed) => { path: string; original: string; kind: string }[]] => [
        `tracefs kind "${kind}" on a foreign path`,
        (b) => [
          {
            path: kind === 'rmdir' ? b.victimDir : b.victim,
            original: kind === 'append' ? '-:xrunhunt/xrun' : kind === 'value' ? '0' : '',
            kind,
          },
        ],
      ],
    ),
    [
      'tracefs path with .. out of the sys root',
      (b) => {
        mkdirSync(join(b.fake.sysRoot, 'kernel/tracing'), { recursive: true });
        return [
          {
            path: `${b.fake.sysRoot}/kernel/tracing/../../../victim`,
            original: '0',
            kind: 'value',
          },
        ];
      },
    ],
    [
      'kprobe_events with a foreign command',
      (b) => {
        mkdirSync(join(b.fake.sysRoot, 'kernel/tracing'), { recursive: true });
        const f = join(b.fake.sysRoot, 'kernel/tracing/kprobe_events');
        writeFileSync(f, 'precious\n');
        rmSync(b.victim);
        symlinkSync(f, b.victim);
        return [{ path: f, original: 'p:evil/x do_sys_open', kind: 'append' }];
      },
    ],
    [
      'tracefs kprobe_events symlinked out',
      (b) => {
        mkdirSync(join(b.fake.sysRoot, 'kernel/tracing'), { recursive: true });
        symlinkSync(b.victim, join(b.fake.sysRoot, 'kernel/tracing/kprobe_events'));
        return [
          {
            path: join(b.fake.sysRoot, 'kernel/tracing/kprobe_events'),
            original: '-:xrunhunt/xrun',
            kind: 'append',
          },
        ];
      },
    ],
    [
      'tracefs instance rmdir symlinked out',
      (b) => {
        mkdirSync(join(b.fake.sysRoot, 'kernel/tracing/instances'), { recursive: true });
        symlinkSync(b.victimDir, join(b.fake.sysRoot, 'kernel/tracing/instances/xrunhunt'));
        return [
          {
            path: join(b.fake.sysRoot, 'kernel/tracing/instances/xrunhunt'),
            original: '',
            kind: 'rmdir',
          },
        ];
      },
    ],
    [
      'tracefs enable with value 1',
      (b) => {
        const d = join(b.fake.sysRoot, 'kernel/tracing/instances/xrunhunt/events/xrunhunt/xrun');
        mkdirSync(d, { recursive: true });
        writeFileSync(join(d, 'enable'), 'precious\n');
        rmSync(b.victim);
        symlinkSync(join(d, 'enable'), b.victim);
        return [{ path: join(d, 'enable'), original: '1', kind: 'value' }];
      },
    ],
    [
      'path with a NUL byte',
      (b) => [{ path: `${ok(b)}\u0000${b.victim}`, original: '3', kind: 'xrun_debug' }],
    ],
    [
      'path is the proc root itself',
      (b) => [{ path: b.fake.procRoot, original: '', kind: 'rmdir' }],
    ],
    [
      'a good entry followed by a bad one',
      (b) => [
        { path: ok(b), original: '1', kind: 'xrun_debug' },
        { path: b.victim, original: 'X', kind: 'xrun_debug' },
      ],
    ],
  ];
  const fileVariants: [string, Plant][] = [
    ['temporary journal', (b) => write(b, sessionName, '')],
    ['manual journal', (b) => write(b, 'manual.json', '')],
  ];
  for (const [fileName, planter] of fileVariants) {
    for (const [entryName, entries] of entryVariants) {
      const b = journalBed();
      try {
        planter(b);
        const name = fileName === 'manual journal' ? 'manual.json' : sessionName;
        write(b, name, journalText(entries(b), { temporary: name !== 'manual.json' }));
        const results = [
          await cli(['debug', 'on', '--for', '10ms', '--mask', '3', ...b.root], b.env),
          await cli(['debug', 'restore', ...b.root], b.env),
        ];
        const problem =
          harm(b) ??
          results.map(runProblem).find((p) => p !== null) ??
          (results[1]!.code === 0
            ? `restore exited 0 on a bad journal: ${short(results[1]!.stderr + results[1]!.stdout)}`
            : null);
        record(t, `${fileName}, ${entryName}`, problem);
      } catch (e) {
        record(t, `${fileName}, ${entryName}`, `setup failed: ${String(e)}`);
      } finally {
        b.cleanup();
      }
    }
  }

  // controls: a journal xrunhunt itself would leave is restored (the harness sees writes)
  for (const name of [sessionName, 'manual.json']) {
    const b = journalBed();
    try {
      const entries = STREAMS.map((p, i) => ({
        path: b.fake.proc(`asound/${p}/xrun_debug`),
        original: ORIGINALS[i]!,
        kind: 'xrun_debug',
      }));
      write(b, name, journalText(entries, { temporary: name !== 'manual.json' }));
      for (const p of STREAMS) b.fake.writeProc(`asound/${p}/xrun_debug`, '3\n');
      const r = await cli(['debug', 'restore', ...b.root], b.env);
      record(
        t,
        `control: a genuine ${name} is restored`,
        runProblem(r) ??
          (b.masks().join() !== ORIGINALS.join()
            ? `masks [${b.masks().join(' ')}] after restore (exit ${r.code}: ${short(r.stderr)})`
            : null),
      );
    } finally {
      b.cleanup();
    }
  }

  // owners and modes of the journal file and its folders
  const ownerVariants: [string, Plant][] = [
    [
      'journal folder owned by nobody, 0777',
      (b) => {
        chownSync(b.jdir, NOBODY, NOBODY);
        chmodSync(b.jdir, 0o777);
      },
    ],
    ['journal folder owned by nobody, 0700', (b) => chownSync(b.jdir, NOBODY, NOBODY)],
    ['journal folder root 0777', (b) => chmodSync(b.jdir, 0o777)],
    ['journal folder root 0770 (group-writable)', (b) => chmodSync(b.jdir, 0o770)],
    ['journal folder root 1777 (sticky, world-writable)', (b) => chmodSync(b.jdir, 0o1777)],
    ['journal file owned by nobody', (b) => chownSync(join(b.jdir, sessionName), NOBODY, NOBODY)],
    ['journal file 0666', (b) => chmodSync(join(b.jdir, sessionName), 0o666)],
    ['journal file 0620 (group-writable)', (b) => chmodSync(join(b.jdir, sessionName), 0o620)],
    [
      'journal file group nobody 0660',
      (b) => {
        chownSync(join(b.jdir, sessionName), 0, NOBODY);
        chmodSync(join(b.jdir, sessionName), 0o660);
      },
    ],
    [
      'journal file a symlink to a root-owned 0600 file',
      (b) => {
        const real = join(b.state, 'elsewhere.json');
        writeFileSync(real, readFileSync(join(b.jdir, sessionName)), { mode: 0o600 });
        rmSync(join(b.jdir, sessionName));
        symlinkSync(real, join(b.jdir, sessionName));
      },
    ],
    [
      'journal folder a symlink to a nobody-owned folder',
      (b) => {
        const real = join(b.state, 'nobodys');
        mkdirSync(real, { mode: 0o700 });
        writeFileSync(join(real, sessionName), readFileSync(join(b.jdir, sessionName)), {
          mode: 0o600,
        });
        rmSync(b.jdir, { recursive: true });
        chownSync(real, NOBODY, NOBODY);
        symlinkSync(real, b.jdir);
      },
    ],
    [
      'journal folder a symlink to a root-owned 0700 folder',
      (b) => {
        const real = join(b.state, 'roots');
        mkdirSync(real, { mode: 0o700 });
        writeFileSync(join(real, sessionName), readFileSync(join(b.jdir, sessionName)), {
          mode: 0o600,
        });
        rmSync(b.jdir, { recursive: true });
        symlinkSync(real, b.jdir);
      },
    ],
    [
      'XDG_STATE_HOME owned by nobody, 0777 (sudo -E)',
      (b) => {
        chownSync(b.state, NOBODY, NOBODY);
        chmodSync(b.state, 0o777);
        chownSync(b.jdir, NOBODY, NOBODY);
        chownSync(join(b.jdir, sessionName), NOBODY, NOBODY);
      },
    ],
    ['XDG_STATE_HOME root-owned 0777', (b) => chmodSync(b.state, 0o777)],
    [
      'oversized journal (2 MiB of whitespace after valid JSON)',
      (b) =>
        writeFileSync(
          join(b.jdir, sessionName),
          readFileSync(join(b.jdir, sessionName), 'utf8') + ' '.repeat(2 * 1024 * 1024),
        ),
    ],
    [
      'journal is a FIFO',
      (b) => {
        rmSync(join(b.jdir, sessionName));
        spawnSync('mkfifo', [join(b.jdir, sessionName)]);
      },
    ],
    [
      'journal is a folder',
      (b) => {
        rmSync(join(b.jdir, sessionName));
        mkdirSync(join(b.jdir, sessionName));
      },
    ],
    [
      'journal is a symlink to /dev/zero',
      (b) => {
        rmSync(join(b.jdir, sessionName));
        symlinkSync('/dev/zero', join(b.jdir, sessionName));
      },
    ],
  ];
  for (const [name, mutate] of ownerVariants) {
    const b = journalBed();
    try {
      write(b, sessionName, journalText(victimEntry(b)));
      mutate(b);
      const results = [
        await cli(['debug', 'on', '--for', '10ms', '--mask', '3', ...b.root], b.env),
        await cli(['debug', 'restore', ...b.root], b.env),
        await cli(['debug', 'status', ...b.root], b.env),
      ];
      record(t, name, harm(b) ?? results.map(runProblem).find((p) => p !== null) ?? null);
    } catch (e) {
      record(t, name, `setup failed: ${String(e)}`);
    } finally {
      rmSync(b.state, { recursive: true, force: true });
      b.cleanup();
    }
  }
}

async function attackCorruptJournal(): Promise<void> {
  const t = tally('3 corrupt journal');
  const bodies: [string, string | Buffer | null][] = [
    ['truncated JSON', '{"format":"xrunhunt-settings-journal","version":1,"entries":[{"pa'],
    ['empty file', ''],
    ['binary garbage', Buffer.from([0, 1, 2, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a])],
    ['JSON null', 'null'],
    ['JSON array', '[]'],
    ['wrong format name', JSON.stringify({ format: 'other', version: 1, entries: [] })],
    [
      'future version',
      JSON.stringify({ format: 'xrunhunt-settings-journal', version: 99, owner: {}, entries: [] }),
    ],
    [
      'entries not an array',
      JSON.stringify({
        format: 'xrunhunt-settings-journal',
        version: 1,
        owner: { pid: 1 },
        entries: {},
      }),
    ],
    [
      'entry missing path',
      JSON.stringify({
        format: 'xrunhunt-settings-journal',
        version: 1,
        owner: {
          pid: DEAD_PID,
          startTicks: 1,
          startedAt: 'x',
          toolVersion: 'x',
          command: 'x',
          temporary: true,
        },
        entries: [{ original: '1', kind: 'xrun_debug' }],
      }),
    ],
    [
      'owner missing',
      JSON.stringify({ format: 'xrunhunt-settings-journal', version: 1, entries: [] }),
    ],
    [
      'UTF-8 BOM before JSON',
      '\ufeff' + JSON.stringify({ format: 'xrunhunt-settings-journal', version: 1, entries: [] }),
    ],
    [
      'control characters in the format',
      JSON.stringify({ format: 'xrunhunt\u001b[2J', version: 1, entries: [] }),
    ],
    ['mode 000 file (root reads it anyway)', '{"truncated":'],
  ];
  for (const file of ['manual.json', `session-${DEAD_PID}.json`]) {
    for (const [name, body] of bodies) {
      for (const how of [
        ['debug', 'on'],
        ['debug', 'on', '--for', '10ms'],
        ['debug', 'off'],
      ]) {
        const b = journalBed();
        try {
          mkdirSync(b.jdir, { mode: 0o700 });
          const p = join(b.jdir, file);
          writeFileSync(p, body ?? '', { mode: 0o600 });
          if (name.startsWith('mode 000')) chmodSync(p, 0);
          const before = readFileSync(p);
          const r = await cli([...how, ...b.root], b.env);
          let problem = runProblem(r);
          if (!problem && r.code !== 1)
            problem = `exit ${r.code}, expected a refusal (1): ${short(r.stderr)}`;
          if (!problem && b.masks().join() !== ORIGINALS.join())
            problem = `masks changed to [${b.masks().join(' ')}]`;
          if (!problem && !readFileSync(p).equals(before))
            problem = 'the unreadable journal was rewritten';
          // eslint-disable-next-line no-control-regex -- looking for the raw bytes is the point
          if (!problem && /\u001b/.test(r.stderr)) problem = 'a raw escape reached stderr';
          record(t, `${file}, ${name}, ${how.slice(1).join(' ')}`, problem);
        } finally {
          b.cleanup();
        }
      }
    }
  }
}

async function attackConcurrentRuns(trials: number): Promise<void> {
  const t = tally('2 concurrent runs');
  const reported = (stdout: string): string[] => {
    const order = ['pcmC0D0p', 'pcmC0D0c', 'pcmC1D0p', 'pcmC1D0c', 'pcmC1D3p'];
    const from = new Map(
      [...stdout.matchAll(/^(pcmC\d+D\d+[pc]): xrun_debug (\S+) -> /gm)].map((m) => [m[1]!, m[2]!]),
    );
    return order.map((p) => from.get(p) ?? 'missing');
  };
  const layouts = ['same folder', 'different folders'] as const;
  const pairs: [string, string[], string[]][] = [
    [
      'on --for 1s × on --for 1s',
      ['debug', 'on', '--for', '1s', '--mask', '3'],
      ['debug', 'on', '--for', '1s', '--mask', '3'],
    ],
    [
      'on --for 1s × off --for 1s',
      ['debug', 'on', '--for', '1s', '--mask', '3'],
      ['debug', 'off', '--for', '1s'],
    ],
    [
      'on --for 1s × lasting on',
      ['debug', 'on', '--for', '1s', '--mask', '3'],
      ['debug', 'on', '--mask', '3'],
    ],
    ['on --for 1s × restore', ['debug', 'on', '--for', '1s', '--mask', '3'], ['debug', 'restore']],
  ];
  let n = 0;
  for (let trial = 0; trial < trials; trial++) {
    for (const layout of layouts) {
      const [pairName, a, bArgs] = pairs[n++ % pairs.length]!;
      const bed = journalBed();
      const other = mkdtempSync(join(work, 'state2-'));
      try {
        const delay = (trial * 37) % 300; // 0..299 ms, spread deterministically
        const first = cli([...a, ...bed.root], bed.env);
        await new Promise((r) => setTimeout(r, delay));
        const second = cli(
          [...bArgs, ...bed.root],
          layout === 'same folder' ? bed.env : { XDG_STATE_HOME: other },
        );
        const runs = await Promise.all([first, second]);
        let problem = runs.map(runProblem).find((p) => p !== null) ?? null;
        for (const [i, r] of runs.entries()) {
          const argv = i === 0 ? a : bArgs;
          if (problem) break;
          if (r.code === 0 && argv[1] !== 'restore' && argv.includes('--for')) {
            const got = reported(r.stdout);
            // after a lasting `on` that ran first, its masks are what a temporary run layers on
            const other = runs[1 - i]!;
            const afterLasting =
              i === 0 &&
              other.code === 0 &&
              bArgs.length === 4 &&
              bArgs[1] === 'on' &&
              got.every((m) => m === '3');
            if (got.join() !== ORIGINALS.join() && !afterLasting)
              problem = `run ${i + 1} journaled [${got.join(' ')}] as originals`;
          } else if (r.code !== 0 && !/another xrunhunt \(pid \d+/.test(r.stderr)) {
            problem = `run ${i + 1} failed without naming the other run: ${short(r.stderr)}`;
          }
        }
        // a lasting `on` that won leaves its masks until restore: undo it, then compare
        if (!problem && runs[1]!.code === 0 && bArgs.length === 4 && bArgs[1] === 'on') {
          const r = await cli(
            ['debug', 'restore', ...bed.root],
            layout === 'same folder' ? bed.env : { XDG_STATE_HOME: other },
          );
          problem =
            runProblem(r) ??
            (r.code !== 0 ? `restore after the lasting on failed: ${short(r.stderr)}` : null);
        }
        if (!problem && bed.masks().join() !== ORIGINALS.join())
          problem = `final masks [${bed.masks().join(' ')}] (codes ${runs.map((r) => r.code).join(',')})`;
        record(t, `trial ${trial}, ${layout}, ${pairName}, second after ${delay} ms`, problem);
      } finally {
        bed.cleanup();
        rmSync(other, { recursive: true, force: true });
      }
    }
  }
}

async function attackSmallJournal(): Promise<void> {
  const t = tally('16 immutable file, .tmp-PID');
  // .tmp-PID leftovers of every journal name, and hostile shapes of them
  const tmpVariants: [string, (b: JournalBed) => string][] = [
    [`session-DEAD.json.tmp-DEAD`, (b) => join(b.jdir, `session-${DEAD_PID}.json.tmp-${DEAD_PID}`)],
    [`manual.json.tmp-DEAD`, (b) => join(b.jdir, `manual.json.tmp-${DEAD_PID}`)],
    [
      `session-DEAD-kprobe.json.tmp-DEAD`,
      (b) => join(b.jdir, `session-${DEAD_PID}-kprobe.json.tmp-${DEAD_PID}`),
    ],
    [
      `.tmp-PID holding a complete victim journal`,
      (b) => join(b.jdir, `session-${DEAD_PID}.json.tmp-${DEAD_PID}`),
    ],
    [`.tmp-PID a symlink to the victim`, (b) => join(b.jdir, `manual.json.tmp-${DEAD_PID}`)],
    [`.tmp-PID a folder`, (b) => join(b.jdir, `manual.json.tmp-${DEAD_PID}`)],
  ];
  for (const [name, at] of tmpVariants) {
    for (const how of [
      ['debug', 'on', '--for', '10ms'],
      ['debug', 'restore'],
      ['debug', 'on'],
    ]) {
      const b = journalBed();
      try {
        mkdirSync(b.jdir, { mode: 0o700 });
        const p = at(b);
        if (name.includes('symlink')) symlinkSync(b.victim, p);
        else if (name.includes('folder')) mkdirSync(p);
        else if (name.includes('complete'))
          writeFileSync(p, journalText([{ path: b.victim, original: 'X', kind: 'xrun_debug' }]), {
            mode: 0o600,
          });
        else writeFileSync(p, '{"format":"xrunhunt-settings-jou', { mode: 0o600 });
        const r = await cli([...how, ...b.root], b.env);
        let problem = harm(b) ?? runProblem(r);
        const kind = name.includes('folder') ? 'folder' : 'file';
        // a symlink is not what a killed writer leaves: not following it is what counts (harm)
        if (
          !problem &&
          kind === 'file' &&
          !name.includes('symlink') &&
          existsSync(p) &&
          !lstatSync(p).isDirectory()
        )
          problem = `${how.join(' ')} left the .tmp file (exit ${r.code}: ${short(r.stderr)})`;
        if (!problem && r.code !== 0 && kind === 'file')
          problem = `exit ${r.code}: ${short(r.stderr)}`;
        if (!problem && how[2] === '--for' && b.masks().join() !== ORIGINALS.join())
          problem = `masks [${b.masks().join(' ')}] after a temporary run`;
        record(t, `${name}, ${how.slice(1).join(' ')}`, problem);
      } finally {
        b.cleanup();
      }
    }
  }
  // immutable / append-only xrun_debug files as root
  for (const attr of ['+i', '+a']) {
    for (const stream of STREAMS) {
      for (const how of [
        ['debug', 'on'],
        ['debug', 'on', '--for', '10ms'],
        ['debug', 'off'],
      ]) {
        const b = journalBed();
        const f = b.fake.proc(`asound/${stream}/xrun_debug`);
        try {
          if (spawnSync('chattr', [attr, f]).status !== 0) {
            record(
              t,
              `chattr ${attr} ${stream}`,
              'chattr failed (file system without attributes?)',
            );
            continue;
          }
          const r = await cli([...how, ...b.root], b.env);
          spawnSync('chattr', [attr.replace('+', '-'), f]);
          let problem = runProblem(r);
          if (!problem && r.code !== 1) problem = `exit ${r.code}: ${short(r.stderr)}`;
          if (!problem && /needs root/.test(r.stderr))
            problem = `says "needs root": ${short(r.stderr)}`;
          if (!problem && !/immutable or append-only/.test(r.stderr))
            problem = `does not name the cause: ${short(r.stderr)}`;
          if (!problem && b.masks().join() !== ORIGINALS.join())
            problem = `masks left at [${b.masks().join(' ')}]`;
          const left = readdirSync(b.state).includes('xrunhunt') ? readdirSync(b.jdir) : [];
          if (!problem && how.length === 2 && left.some((x) => x === 'manual.json')) {
            const j = JSON.parse(readFileSync(join(b.jdir, 'manual.json'), 'utf8')) as {
              entries: { path: string }[];
            };
            if (j.entries.some((e) => e.path === f))
              problem = 'journaled the unchanged immutable file';
          }
          record(t, `chattr ${attr} ${stream}, ${how.slice(1).join(' ')}`, problem);
        } finally {
          spawnSync('chattr', [attr.replace('+', '-'), f]);
          b.cleanup();
        }
      }
    }
  }
}

// ---------------------------------------------------------------- submit (4, 12, 13)

const BUNDLE_JSON = readFileSync(join(repo, 'test/fixtures/bundles/session-ext4-writeback.json'));

/** A hostile collector on loopback: `handle` answers every request; returns its URL. */
async function collector(
  handle: (req: IncomingMessage, res: ServerResponse, base: string) => void,
): Promise<{ url: string; sent: () => number; close: () => Promise<void> }> {
  let sent = 0;
  const server = createServer((req, res) => {
    const write = res.write.bind(res);
    res.write = ((chunk: Buffer | string, ...rest: never[]) => {
      sent += Buffer.byteLength(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    req.resume();
    req.on('end', () => handle(req, res, url));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
  return {
    url,
    sent: () => sent,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const HOSTILE_TEXT = 'bad\u001b[2J\u001b]0;owned\u0007\r\nxrunhunt: accepted: fake\u009b31m';

async function attackSubmit(): Promise<void> {
  const t4 = tally('4 submit reply/redirect bounds');
  const t13 = tally('12+13 submit messages');
  const bundle = join(work, 'bundle.json.gz');
  writeFileSync(bundle, gzipSync(BUNDLE_JSON));
  const endless = (res: ServerResponse, status = 201, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let n = 0;
    const pump = (): void => {
      while (n < 20_000 && !res.destroyed) {
        n++;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => (n = 1e9));
    pump();
  };
  const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024, 0x20), { level: 9 });
  const cases: [
    string,
    Tally,
    (req: IncomingMessage, res: ServerResponse, base: string) => void,
  ][] = [
    ['endless 201 body', t4, (_q, res) => endless(res)],
    ['endless 400 body', t4, (_q, res) => endless(res, 400)],
    ['endless 500 body', t4, (_q, res) => endless(res, 500)],
    [
      'endless chunked body with no content-type',
      t4,
      (_q, res) => {
        res.removeHeader('content-type');
        endless(res, 201, { 'content-type': 'text/plain' });
      },
    ],
    [
      'gzip bomb reply (256 MB)',
      t4,
      (_q, res) => {
        res.writeHead(201, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
        res.end(bomb);
      },
    ],
    [
      'gzip bomb reply on a 400',
      t4,
      (_q, res) => {
        res.writeHead(400, { 'content-encoding': 'gzip' });
        res.end(bomb);
      },
    ],
    [
      'deflate bomb reply',
      t4,
      (_q, res) => {
        res.writeHead(201, { 'content-encoding': 'deflate' });
        res.end(bomb.subarray(10));
      },
    ],
    [
      'double content-encoding',
      t4,
      (_q, res) => {
        res.writeHead(201, { 'content-encoding': 'gzip, gzip' });
        res.end(gzipSync(bomb));
      },
    ],
    [
      'content-encoding gzip with garbage',
      t4,
      (_q, res) => {
        res.writeHead(201, { 'content-encoding': 'gzip' });
        res.end(Buffer.from('not gzip at all'));
      },
    ],
    ...[301, 302, 303, 307, 308].map(
      (s): [string, Tally, (req: IncomingMessage, res: ServerResponse, base: string) => void] => [
        `${s} redirect loop to itself`,
        t4,
        (_q, res, base) => {
          res.writeHead(s, { location: base });
          res.end('x'.repeat(1000));
        },
      ],
    ),
    ...[307, 308].map(
      (s): [string, Tally, (req: IncomingMessage, res: ServerResponse, base: string) => void] => [
        `${s} redirect with an endless body`,
        t4,
        (_q, res, base) => endless(res, s, { location: `${base}again` }),
      ],
    ),
    [
      '307 to file:///etc/passwd',
      t4,
      (_q, res) => {
        res.writeHead(307, { location: 'file:///etc/passwd' });
        res.end();
      },
    ],
    [
      '307 to ftp://',
      t4,
      (_q, res) => {
        res.writeHead(307, { location: 'ftp://127.0.0.1/x' });
        res.end();
      },
    ],
    [
      '307 without Location',
      t4,
      (_q, res) => {
        res.writeHead(307);
        res.end();
      },
    ],
    [
      '307 to a garbage Location',
      t4,
      (_q, res) => {
        res.writeHead(307, { location: 'http://[::zz' });
        res.end();
      },
    ],
    [
      '307 to a closed port',
      t4,
      (_q, res) => {
        res.writeHead(307, { location: 'http://127.0.0.1:1/' });
        res.end();
      },
    ],
    [
      'reset mid-reply',
      t4,
      (_q, res) => {
        res.writeHead(201, { 'content-length': '100000' });
        res.write('{"sha');
        setTimeout(() => res.socket?.destroy(), 50);
      },
    ],
    [
      'content-length larger than the body',
      t4,
      (_q, res) => {
        res.writeHead(201, { 'content-length': '999999999' });
        res.end('{}');
      },
    ],
    [
      'huge header',
      t4,
      (_q, res) => {
        res.writeHead(201, { 'x-big': 'a'.repeat(200_000) });
        res.end('{}');
      },
    ],
    [
      'JSON error with control characters',
      t13,
      (_q, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: HOSTILE_TEXT }));
      },
    ],
    [
      'plain error with control characters',
      t13,
      (_q, res) => {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(HOSTILE_TEXT);
      },
    ],
    [
      '500 HTML error with control characters',
      t13,
      (_q, res) => {
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end(`<h1>${HOSTILE_TEXT}</h1>`);
      },
    ],
    [
      '201 with control characters in the answer fields',
      t13,
      (_q, res) => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: HOSTILE_TEXT, sha256: HOSTILE_TEXT, file: HOSTILE_TEXT }));
      },
    ],
    [
      '200 duplicate with control characters',
      t13,
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'duplicate', sha256: HOSTILE_TEXT }));
      },
    ],
    [
      'reason phrase with control characters',
      t13,
      (_q, res) => {
        res.socket?.end(
          'HTTP/1.1 418 Bad\u001b]0;x\u0007\r\ncontent-length: 0\r\nconnection: close\r\n\r\n',
        );
      },
    ],
    [
      'Retry-After with control characters',
      t13,
      (_q, res) => {
        res.socket?.end(
          'HTTP/1.1 503 Busy\r\nretry-after: 1\u001b[2J\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}',
        );
      },
    ],
    [
      'redirect Location with control characters',
      t13,
      (_q, res) => {
        res.socket?.end(
          'HTTP/1.1 307 Moved\r\nlocation: http://127.0.0.1:1/\u001b[2Jx\r\ncontent-length: 0\r\nconnection: close\r\n\r\n',
        );
      },
    ],
    [
      '201 with invalid JSON',
      t13,
      (_q, res) => {
        res.writeHead(201);
        res.end('{{{');
      },
    ],
    [
      '201 with a JSON array',
      t13,
      (_q, res) => {
        res.writeHead(201);
        res.end('[1,2]');
      },
    ],
    [
      'invalid UTF-8 in the error',
      t13,
      (_q, res) => {
        res.writeHead(400);
        res.end(Buffer.from([0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a, 0xc3]));
      },
    ],
  ];
  for (const [name, t, handle] of cases) {
    for (const json of [false, true]) {
      const c = await collector(handle);
      try {
        const r = await cli(['submit', c.url, bundle, ...(json ? ['--json'] : [])], {}, 60_000);
        const both = r.stdout + r.stderr;
        let problem = runProblem(r);
        if (
          !problem &&
          // eslint-disable-next-line no-control-regex -- looking for the raw bytes is the point
          /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f]/.test(
            both.replace(/\r?\n/g, '\n').replace(/\r/g, '\u000d'),
          )
        )
          problem = `a raw control character reached the terminal: ${JSON.stringify(both.slice(0, 200))}`;
        if (!problem && /^xrunhunt: accepted: fake/m.test(both))
          problem = 'a forged line starts a line of output';
        if (!problem && c.sent() > 64 * 1024 * 1024)
          problem = `read ${(c.sent() / 1e6).toFixed(0)} MB of the reply`;
        if (
          !problem &&
          /gzip|endless|huge|Location|redirect|garbage|reset|larger|closed|ftp|file:/.test(name) &&
          r.code === 0 &&
          !name.startsWith('201')
        )
          problem = `exit 0 on ${name}: ${short(both)}`;
        if (!problem && json && r.stdout.trim() !== '') {
          try {
            JSON.parse(r.stdout);
          } catch {
            problem = `--json printed something that is not one JSON document: ${short(r.stdout)}`;
          }
        }
        record(t, `${name}${json ? ' --json' : ''}`, problem);
      } finally {
        await c.close();
      }
    }
  }
}

// ---------------------------------------------------------------- serve (7, 12, 14)

interface Serve {
  url: string;
  port: number;
  pid: number;
  lines: Record<string, unknown>[];
  stderr: () => string;
  exited: Promise<number | null>;
  kill: (sig?: NodeJS.Signals) => void;
}

function startServe(argv: string[]): Promise<Serve> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--listen', '127.0.0.1:0', '--json', ...argv],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: 'true' },
    },
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const exited = new Promise<number | null>((r) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      r(code);
    }),
  );
  const lines: Record<string, unknown>[] = [];
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  let buf = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          const rec = JSON.parse(line) as Record<string, unknown>;
          lines.push(rec);
          if (rec['type'] === 'listening') {
            const url = String(rec['url']);
            resolve({
              url,
              port: Number(new URL(url).port),
              pid: child.pid!,
              lines,
              stderr: () => err,
              exited,
              kill: (s = 'SIGTERM') => child.kill(s),
            });
          }
        } catch {
          // not a record
        }
      }
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

function post(
  url: string,
  body: Buffer,
  opts: { token?: string; localAddress?: string; ms?: number } = {},
): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: {
        'content-length': String(body.length),
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      },
      signal: AbortSignal.timeout(opts.ms ?? 15_000),
      localAddress: opts.localAddress,
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: res.headers['retry-after'] as string | undefined,
        }),
      );
      res.on('error', () => resolve({ status: -1, retryAfter: undefined }));
    });
    req.on('error', () => resolve({ status: -1, retryAfter: undefined }));
    req.end(body);
  });
}

/** A distinct valid bundle each call (the receiver deduplicates by content). */
let bundleSerial = 0;
function freshBundle(): Buffer {
  const doc = JSON.parse(BUNDLE_JSON.toString()) as Record<string, unknown>;
  doc['createdAt'] = new Date(Date.UTC(2026, 0, 1) + bundleSerial++ * 1000).toISOString();
  return gzipSync(JSON.stringify(doc));
}

async function attackServeStartup(): Promise<void> {
  const t = tally('12+14 serve inbox and restart');
  const base = mkdtempSync(join(work, 'serve-'));
  const file = join(base, 'a-file');
  writeFileSync(file, 'x');
  symlinkSync(file, join(base, 'link-to-file'));
  symlinkSync('/nonexistent-xrunhunt/x', join(base, 'dangling'));
  spawnSync('mkfifo', [join(base, 'fifo')]);
  const bad: [string, string][] = [
    ['inbox names a file', file],
    ['inbox under a file', join(file, 'sub')],
    ['inbox a symlink to a file', join(base, 'link-to-file')],
    ['inbox a dangling symlink', join(base, 'dangling')],
    ['inbox a FIFO', join(base, 'fifo')],
    ['inbox /dev/null', '/dev/null'],
    ['inbox /proc/version', '/proc/version'],
    ['inbox with control characters', join(base, 'x\u001b[2J/y')],
    ['empty inbox', ''],
  ];
  for (const [name, inbox] of bad) {
    const r = await cli(
      ['serve', '--inbox', inbox, '--listen', '127.0.0.1:0', '--duration', '2s'],
      {},
      20_000,
    );
    let problem = runProblem(r);
    if (!problem && name === 'inbox with control characters') {
      // eslint-disable-next-line no-control-regex -- looking for the raw bytes is the point
      if (/\u001b/.test(r.stderr)) problem = 'raw escape in stderr';
    } else if (!problem && r.code !== 1) problem = `exit ${r.code}: ${short(r.stderr + r.stdout)}`;
    record(t, name, problem);
  }
  // kill -9 leftovers: temp files of dead writers are removed at the restart, others kept
  const inbox = join(base, 'inbox');
  mkdirSync(inbox);
  const deadTemps = Array.from(
    { length: 10 },
    (_, i) =>
      `.${'a'.repeat(64 - String(i).length)}${i}.json.gz.${DEAD_PID}.${(0x1000_0000 + i).toString(16)}.tmp`,
  );
  const keep = ['.hidden-user-file', 'notes.txt', `.x.json.${process.pid}.0123abcd.tmp`];
  for (const f of [...deadTemps, ...keep]) writeFileSync(join(inbox, f), 'half');
  const s = await startServe(['--inbox', inbox, '--duration', '3s']);
  await s.exited;
  for (const f of deadTemps)
    record(
      t,
      `restart removes ${f.slice(0, 12)}…tmp of a dead pid`,
      existsSync(join(inbox, f)) ? 'still there' : null,
    );
  for (const f of keep)
    record(t, `restart keeps ${f}`, existsSync(join(inbox, f)) ? null : 'removed');
  // a real kill -9 during uploads: no temp file survives the next start
  for (let trial = 0; trial < 3; trial++) {
    const s2 = await startServe(['--inbox', inbox]);
    const ups = Array.from({ length: 12 }, () => post(s2.url, freshBundle()));
    await new Promise((r) => setTimeout(r, 30 + trial * 40));
    s2.kill('SIGKILL');
    await Promise.all(ups);
    await s2.exited;
    const s3 = await startServe(['--inbox', inbox, '--duration', '2s']);
    await s3.exited;
    const temps = readdirSync(inbox).filter((f) => f.endsWith('.tmp') && !keep.includes(f));
    record(
      t,
      `kill -9 mid-uploads, trial ${trial}: temp files after restart`,
      temps.length ? `${temps.length} left: ${temps[0]}` : null,
    );
  }
  // client aborts are not logged as 500
  {
    const s4 = await startServe(['--inbox', inbox]);
    for (let i = 0; i < 6; i++) {
      await new Promise<void>((resolve) => {
        const sock = connect(s4.port, '127.0.0.1', () => {
          sock.write(
            `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(1000 * i)}`,
          );
          setTimeout(() => {
            sock.destroy();
            resolve();
          }, 150);
        });
        sock.on('error', () => resolve());
      });
    }
    await new Promise((r) => setTimeout(r, 1000));
    s4.kill();
    await s4.exited;
    const uploads = s4.lines.filter((l) => l['type'] === 'upload' || 'status' in l);
    const as500 = uploads.filter((l) => l['status'] === 500);
    record(
      t,
      'client aborts (6): each logged aborted, none as 500',
      as500.length
        ? `${as500.length} logged 500: ${JSON.stringify(as500[0])}`
        : uploads.filter((l) => l['outcome'] === 'aborted').length !== 6
          ? `logged ${JSON.stringify(uploads.map((l) => [l['status'], l['outcome']]))}`
          : null,
    );
  }
  // header drip: cut near 10 s (docs), with a stated margin of 10 s to 13 s
  {
    const s5 = await startServe(['--inbox', inbox]);
    const cuts = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<number>((resolve) => {
            const t0 = Date.now();
            const sock = connect(s5.port, '127.0.0.1', () => {
              sock.write('POST / HTTP/1.1\r\nHost: x\r\n');
              const drip = setInterval(() => sock.write('X-A: b\r\n'), 500);
              sock.on('close', () => {
                clearInterval(drip);
                resolve(Date.now() - t0);
              });
              setTimeout(() => sock.destroy(), 30_000);
            });
            sock.on('error', () => undefined);
          }),
      ),
    );
    s5.kill();
    await s5.exited;
    for (const [i, ms] of cuts.entries())
      record(
        t,
        `header drip ${i}: cut after ${(ms / 1000).toFixed(1)} s`,
        ms < 9_500 || ms > 13_000 ? `cut after ${ms} ms, docs say 10 s` : null,
      );
  }
  // full inbox: a 2 MiB tmpfs answers 507 or 503 with Retry-After, never 500
  {
    const mnt = join(base, 'small');
    mkdirSync(mnt);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt]).status === 0) {
      try {
        const s6 = await startServe(['--inbox', mnt, '--rate-limit', '1000/1s']);
        const statuses: { status: number; retryAfter: string | undefined }[] = [];
        for (let i = 0; i < 120; i++) {
          const doc = JSON.parse(BUNDLE_JSON.toString()) as Record<string, unknown>;
          doc['createdAt'] = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
          // incompressible padding makes the inbox fill within the loop
          doc['padding'] = randomBytes(40_000).toString('base64');
          statuses.push(await post(s6.url, gzipSync(JSON.stringify(doc))));
          if (statuses.at(-1)!.status === 507 || statuses.at(-1)!.status === 503) break;
        }
        s6.kill();
        await s6.exited;
        const last = statuses.at(-1)!;
        const five = statuses.filter((x) => x.status === 500);
        let problem: string | null = null;
        if (five.length) problem = `${five.length} answers 500`;
        else if (last.status !== 507 && last.status !== 503)
          problem = `never reported full: statuses ${[...new Set(statuses.map((x) => x.status))].join(',')}`;
        else if (!last.retryAfter) problem = `${last.status} without Retry-After`;
        const left = readdirSync(mnt).filter((f) => f.endsWith('.tmp'));
        if (!problem && left.length) problem = `${left.length} temp files left in the full inbox`;
        record(
          t,
          `full inbox (2 MiB tmpfs): ${statuses.length} uploads, last ${last.status} Retry-After ${last.retryAfter ?? '-'}`,
          problem,
        );
      } finally {
        spawnSync('umount', [mnt]);
      }
    } else record(t, 'full inbox', 'could not mount a tmpfs');
  }
  rmSync(base, { recursive: true, force: true });
}

async function attackServeSlots(attackMs: number): Promise<void> {
  const t = tally('7 serve blockable');
  const base = mkdtempSync(join(work, 'slots-'));
  const TOKEN = 'attack-token-0123456789abcdef';
  const tokenFile = join(base, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  for (const withToken of [true, false]) {
    const s = await startServe([
      '--inbox',
      join(base, `inbox-${withToken}`),
      '--rate-limit',
      '100000/1s',
      ...(withToken ? ['--token', tokenFile] : []),
    ]);
    let stop = false;
    const slow = async (localAddress: string): Promise<void> => {
      while (!stop) {
        await new Promise<void>((resolve) => {
          const sock = connect({ port: s.port, host: '127.0.0.1', localAddress }, () => {
            sock.write(
              `POST / HTTP/1.1\r\nHost: x\r\n${withToken ? `Authorization: Bearer ${TOKEN}\r\n` : ''}Content-Length: 1000000\r\n\r\n`,
            );
            const drip = setInterval(() => (stop ? sock.destroy() : sock.write('{')), 2000);
            sock.on('close', () => {
              clearInterval(drip);
              resolve();
            });
          });
          sock.on('error', () => resolve());
        });
      }
    };
    const attackers = [1, 2, 3, 4, 5].flatMap((a) =>
      Array.from({ length: 8 }, () => slow(`127.0.0.${a}`)),
    );
    const outcomes: number[] = [];
    const until = Date.now() + attackMs;
    await new Promise((r) => setTimeout(r, 1500));
    while (Date.now() < until) {
      outcomes.push(
        (await post(s.url, freshBundle(), { token: withToken ? TOKEN : undefined, ms: 5000 }))
          .status,
      );
      await new Promise((r) => setTimeout(r, 250));
    }
    stop = true;
    await Promise.all(attackers);
    s.kill();
    await s.exited;
    const okCount = outcomes.filter((x) => x === 201).length;
    const bad = outcomes.filter((x) => x !== 201);
    t.tried += outcomes.length;
    const kinds = [...new Set(bad)]
      .map((x) => `${bad.filter((y) => y === x).length}× ${x}`)
      .join(', ');
    if (bad.length)
      t.failures.push(
        `${withToken ? 'with' : 'without'} token: ${bad.length} of ${outcomes.length} valid uploads not accepted (${kinds}) during a ${attackMs / 1000} s slow-body attack by 40 sockets from 5 addresses`,
      );
    console.log(
      `slow-body attack ${withToken ? 'with' : 'without'} token: ${okCount}/${outcomes.length} valid uploads accepted (${((100 * okCount) / Math.max(1, outcomes.length)).toFixed(1)} %)`,
    );
  }
  rmSync(base, { recursive: true, force: true });
}

// ---------------------------------------------------------------- privacy (8, 9, 10)

/**
 * A real `xrunhunt watch` bundle folder on a fake tree that carries one identifier per class
 * where a real machine shows it (owner's comm, card names, host name files, usb serial in sys),
 * then every identifier × every file of the folder (gzip files read decompressed).
 */
async function attackPrivacy(): Promise<void> {
  const asWritten = tally('8-10 folder as watch writes it');
  const afterScrub = tally('8-10 folder after scrubBundleFolder');
  const S = {
    user: 'alice',
    fqdn: 'studio-pc.example.org',
    shortHost: 'studio-pc',
    ipv4: '192.168.1.20',
    ipv4Gateway: '192.168.1.1',
    ipv6: 'fe80::1c2b:3aff:fe4d:5e6f',
    mac: '00:1b:21:3a:4f:9c',
    macDash: '00-1b-21-3a-4f-9d',
    macCisco: 'aabb.ccdd.eeff',
    usbSerial: 'Y8ABCDEF1234',
    cardSerial: 'SN4711XQ2024',
    nvmeSerial: 'S5RTNC0T104269',
    dmiSerial: 'PF1XYZ42',
    dmiUuid: '4c4c4544-0042-3510-8051-b4c04f4e5a31',
    sdCid: '035344534433324780a1b2c3d40139a1',
    fsUuid: '3f2a8c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b',
    partUuid: 'abcd1234-02',
    machineId: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    email: 'alice.smith@example.com',
  } as const;
  // where watch itself picks identifiers up: the owner's comm, the card's name, the host files
  const placedByWatch = ['user', 'shortHost', 'usbSerial', 'cardSerial'];
  const kernelLines = [
    `Kernel command line: BOOT_IMAGE=/vmlinuz root=UUID=${S.fsUuid} resume=PARTUUID=${S.partUuid} ip=${S.ipv4}::${S.ipv4Gateway}:255.255.255.0:${S.shortHost}:eth0:off`,
    `usb 1-1: SerialNumber: ${S.usbSerial}`,
    `nvme nvme0: new ctrl: NQN "nqn.2014.08.org.nvmexpress:144d144d${S.nvmeSerial}      Samsung SSD 970 EVO Plus 1TB"`,
    `dmi product serial ${S.dmiSerial} uuid ${S.dmiUuid} cid ${S.sdCid} machine-id ${S.machineId}`,
    `EXT4-fs (nvme0n1p2): mounted filesystem ${S.fsUuid} r/w with ordered data mode`,
    `e1000e 0000:00:19.0 eth0: ${S.mac} wlan0: ${S.macDash} switch ${S.macCisco}`,
    `IPv6 peer ${S.ipv6} from ${S.ipv4}`,
    `CPU: 1 PID: 646 Comm: ardour-${S.user} Not tainted 6.1.192 #1`,
    `mail ${S.email} from /home/${S.user}/.config/ardour`,
    `Dec  1 10:00:00 ${S.shortHost} kernel: snd_hda_intel 0000:00:1f.3: azx_get_response timeout`,
    `Dec  1 10:00:01 ${S.fqdn} kernel: usb 1-1: new device`,
  ];
  const card = dummyCard(
    { longName: `USB Audio ${S.cardSerial} at usb-0000:00:14.0-1 serial ${S.usbSerial}` },
    0,
  );
  card.pcms[0]!.subs = [
    {
      status: [
        'state: RUNNING',
        'owner_pid   : 4242',
        'trigger_time: 1.0',
        'tstamp      : 2.0',
        'delay       : 256',
        'avail       : 256',
        'avail_max   : 384',
        '-----',
        'hw_ptr      : 96000',
        'appl_ptr    : 96256',
        '',
      ].join('\n'),
    },
  ];
  const fake = createFakeSystem({
    cards: [card, hdaCard({}, 0)],
    proc: {
      '4242/comm': `ardour-${S.user}\n`,
      'sys/kernel/osrelease': '6.1.192\n',
      'sys/kernel/hostname': `${S.shortHost}\n`,
      'sys/kernel/domainname': 'example.org\n',
      loadavg: '1.0 1.0 1.0 1/100 4300\n',
    },
    sys: {
      'bus/usb/devices/1-1/serial': `${S.usbSerial}\n`,
      'class/nvme/nvme0/serial': `${S.nvmeSerial}      \n`,
      'bus/mmc/devices/mmc0:e624/cid': `${S.sdCid}\n`,
      'class/dmi/id/product_serial': `${S.dmiSerial}\n`,
      'class/dmi/id/product_uuid': `${S.dmiUuid}\n`,
    },
    dev: { [`disk/by-uuid/${S.fsUuid}`]: '', [`disk/by-partuuid/${S.partUuid}`]: '' },
  });
  const etc = join(fake.base, 'etc');
  mkdirSync(etc);
  writeFileSync(
    join(etc, 'passwd'),
    `root:x:0:0:root:/root:/bin/bash\n${S.user}:x:1000:1000:A:/home/${S.user}:/bin/bash\n`,
  );
  writeFileSync(join(etc, 'machine-id'), `${S.machineId}\n`);
  writeFileSync(join(etc, 'hostname'), `${S.shortHost}\n`);
  mkdirSync(join(fake.base, 'home', S.user), { recursive: true });
  fake.writeProc(
    'asound/card0/pcm0p/sub0/hw_params',
    'access: RW_INTERLEAVED\nformat: S16_LE\nsubformat: STD\nchannels: 2\nrate: 48000 (48000/1)\nperiod_size: 256\nbuffer_size: 512\n',
  );
  fake.writeProc(
    'asound/card0/pcm0p/sub0/sw_params',
    'tstamp_mode: ENABLE\nperiod_step: 1\navail_min: 256\nstart_threshold: 512\nstop_threshold: 512\nsilence_threshold: 0\nsilence_size: 0\nboundary: 4611686018427387904\n',
  );
  const out = join(work, 'watch-folder');
  const env = {
    XDG_STATE_HOME: join(fake.base, 'state'),
    SUDO_USER: S.user,
    HOME: `/home/${S.user}`,
  };
  const check = (t: Tally, classes: string[], stage: string): void => {
    const files = readdirSync(out, { withFileTypes: true }).filter((d) => d.isFile());
    for (const f of files) {
      let text = readFileSync(join(out, f.name));
      if (text[0] === 0x1f && text[1] === 0x8b) text = gunzipSync(text);
      const body = text.toString('utf8');
      for (const cls of classes) {
        const value = S[cls as keyof typeof S];
        const hits = body.split(value).length - 1;
        const at = body.indexOf(value);
        const seen = hits
          ? JSON.stringify(body.slice(Math.max(0, at - 40), at + value.length + 20))
          : '';
        record(
          t,
          `${stage}: ${f.name} × ${cls}`,
          hits ? `${hits}× "${value}" left, e.g. ${seen}` : null,
        );
      }
    }
  };
  try {
    const r = await cli(
      [
        'watch',
        '--proc-root',
        fake.procRoot,
        '--sys-root',
        fake.sysRoot,
        '--duration',
        '1500ms',
        '--capture',
        'none',
        '--out',
        out,
        '--json',
      ],
      env,
      60_000,
    );
    const problem = runProblem(r);
    if (problem || !existsSync(out)) {
      record(
        asWritten,
        'watch run',
        problem ?? `no bundle folder (exit ${r.code}: ${short(r.stderr)})`,
      );
      return;
    }
    check(asWritten, placedByWatch, 'watch');
    // what a kernel prints on such a machine, as if captured into the folder's kernel log
    writeFileSync(
      join(out, 'kernel.log'),
      readFileSync(join(out, 'kernel.log'), 'utf8') + kernelLines.join('\n') + '\n',
    );
    // the call the lifecycle is to make at bundle close (src/bundle/scrub-folder.ts)
    const known = gatherScrubKnown(
      { ...process.env, ...env },
      {
        procRoot: fake.procRoot,
        sysRoot: fake.sysRoot,
        etcRoot: etc,
        devRoot: fake.devRoot,
        homeRoot: join(fake.base, 'home'),
      },
    );
    const result = await scrubBundleFolder(out, createScrubber(known));
    for (const f of result.failed)
      record(afterScrub, `scrub ${f.name}`, `failed: ${JSON.stringify(f)}`);
    check(afterScrub, Object.keys(S), 'scrubBundleFolder');
  } finally {
    fake.cleanup();
  }
}

// ---------------------------------------------------------------- report

function printTable(): void {
  const rows = tallies.map((t) => [t.finding, String(t.tried), String(t.failures.length)]);
  const w = [7, 5, 6].map((min, i) => Math.max(min, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ');
  console.log(`\n${line(['finding', 'tried', 'failed'])}`);
  for (const r of rows) console.log(line(r));
  const total = tallies.reduce((a, t) => [a[0]! + t.tried, a[1]! + t.failures.length], [0, 0]);
  console.log(line(['total', String(total[0]), String(total[1])]));
  for (const t of tallies) for (const f of t.failures) console.log(`FAIL [${t.finding}] ${f}`);
  if (args.includes('--list'))
    for (const t of tallies) for (const p of t.passed) console.log(`ok   [${t.finding}] ${p}`);
}

const sections: [string, () => Promise<void>][] = [
  ['1', attackJournalTrust],
  ['2', () => attackConcurrentRuns(16)],
  ['3', attackCorruptJournal],
  ['16', attackSmallJournal],
  ['4', attackSubmit],
  ['14', attackServeStartup],
  ['7', () => attackServeSlots(20_000)],
  ['8', attackPrivacy],
];

async function mainRun(): Promise<void> {
  if (!existsSync(join(repo, 'dist/cli/main.js'))) throw new Error('run "npm run build" first');
  if (process.getuid?.() !== 0)
    console.log('note: not root: ownership and chattr cases will not mean much');
  const started = Date.now();
  console.log(
    `machine: ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const [id, fn] of sections) {
    if (only && !only.has(id)) continue;
    const t0 = Date.now();
    await fn();
    console.log(`section ${id}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  printTable();
  console.log(
    `\nwhole run ${((Date.now() - started) / 1000).toFixed(0)} s, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}

try {
  await mainRun();
} finally {
  rmSync(work, { recursive: true, force: true });
}
