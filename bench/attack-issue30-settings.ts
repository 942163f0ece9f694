// Re-runs the settings classes of issue 30 (items 1-5) against the built CLI (bin/xrunhunt.js)
// and prints, per class, how many variants were tried and how many the code did not withstand,
// one line per failure. Not a test: a verification run. Everything happens in temporary
// folders; mounts (a second procfs, bind mounts: root only) are undone in a finally.
// Usage: npm run build && node --import tsx bench/attack-issue30-settings.ts [--list]
import { createTallies, printTallies, record } from './attack-tally.js';
import { runProgram } from '../test/helpers/cli.js';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFakeSystem, dummyCard, type FakeSystem } from '../test/helpers/fake-proc.js';
import { readJournalFile, type JournalFs } from '../src/proc/journal.js';
import { createTryKnobTree, tryRootArgs } from '../test/helpers/try-knob-tree.js';
import * as nodeFs from 'node:fs';

const repo = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(repo, 'bin/xrunhunt.js');
const list = process.argv.includes('--list');
const isRoot = process.geteuid?.() === 0;
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-attack30-'));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion (killed after timeoutMs: a hang is a result too). */
const cli = (argv: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000): Promise<Run> =>
  runProgram(process.execPath, [BIN, ...argv], { env: { CI: 'true', ...env }, timeoutMs });

const short = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, 200);
const stackTrace = (s: string): boolean => /^\s+at .*(\.js|\.ts):\d+/m.test(s);

const tallies = createTallies();
const tally = tallies.tally;

// ------------------------------------------------------------ 1: writes through links

interface Bed {
  fake: FakeSystem;
  env: NodeJS.ProcessEnv;
  state: string;
  victim: string;
  cleanup(): void;
}

function bed(): Bed {
  const fake = createFakeSystem({
    cards: [dummyCard({}, 1)],
    proc: { 'sys/kernel/osrelease': '6.1.192-lab\n' },
  });
  const state = mkdtempSync(join(work, 'state-'));
  const victim = join(fake.base, 'victim');
  writeFileSync(victim, '7\n');
  return {
    fake,
    state,
    victim,
    env: { XDG_STATE_HOME: state },
    cleanup: () => {
      fake.cleanup();
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** After `debug on` and `debug restore`: the victim intact, nothing stranded, a clear error. */
async function judgeWriteAttack(b: Bed, expectRefusal: boolean): Promise<string | null> {
  const on = await cli(['debug', 'on', '--proc-root', b.fake.procRoot], b.env);
  if (on.signal) return `debug on hung (${on.signal})`;
  if (stackTrace(on.stderr)) return `stack trace: ${short(on.stderr)}`;
  const v = readFileSync(b.victim, 'utf8');
  if (v !== '7\n') return `the victim outside the tree now holds ${JSON.stringify(v)}`;
  if (expectRefusal && on.code === 0) return `debug on wrote (exit 0): ${short(on.stdout)}`;
  const back = await cli(['debug', 'restore', '--proc-root', b.fake.procRoot], b.env);
  if (back.code !== 0) return `debug restore then refused (stranded change): ${short(back.stderr)}`;
  if (readFileSync(b.victim, 'utf8') !== '7\n') return 'restore wrote the victim';
  return null;
}

async function attackWrites(): Promise<void> {
  const t = tally('30.1 setting writes through links');
  const variants: [string, (b: Bed) => void, boolean][] = [
    [
      'symlinked xrun_debug file',
      (b) => {
        const f = b.fake.proc('asound/card0/pcm0p/xrun_debug');
        rmSync(f);
        symlinkSync(b.victim, f);
      },
      true,
    ],
    [
      'symlinked card0 folder',
      (b) => {
        const out = join(b.fake.base, 'outside-card');
        cpSync(b.fake.proc('asound/card0'), out, { recursive: true });
        rmSync(b.fake.proc('asound/card0'), { recursive: true });
        symlinkSync(out, b.fake.proc('asound/card0'));
        rmSync(join(out, 'pcm0p', 'xrun_debug'));
        symlinkSync(b.victim, join(out, 'pcm0p', 'xrun_debug'));
      },
      true,
    ],
    [
      'symlinked pcm0p folder',
      (b) => {
        const out = join(b.fake.base, 'outside-pcm');
        cpSync(b.fake.proc('asound/card0/pcm0p'), out, { recursive: true });
        rmSync(b.fake.proc('asound/card0/pcm0p'), { recursive: true });
        symlinkSync(out, b.fake.proc('asound/card0/pcm0p'));
      },
      true,
    ],
    [
      'relative link with .. out of the tree',
      (b) => {
        const f = b.fake.proc('asound/card0/pcm0c/xrun_debug');
        rmSync(f);
        symlinkSync('../../../../victim', f);
      },
      true,
    ],
    [
      'symlinked asound folder',
      (b) => {
        const out = join(b.fake.base, 'outside-asound');
        cpSync(b.fake.proc('asound'), out, { recursive: true, verbatimSymlinks: true });
        rmSync(b.fake.proc('asound'), { recursive: true });
        symlinkSync(out, b.fake.proc('asound'));
      },
      true,
    ],
    [
      'hard link to a file outside the tree (same file system)',
      (b) => {
        const f = b.fake.proc('asound/card0/pcm0p/xrun_debug');
        rmSync(f);
        linkSync(b.victim, f);
      },
      true,
    ],
    [
      'original out of range (would not be restorable)',
      (b) => b.fake.writeProc('asound/card0/pcm0p/xrun_debug', '99999999999\n'),
      true,
    ],
  ];
  for (const [name, plant, expectRefusal] of variants) {
    const b = bed();
    try {
      plant(b);
      let problem = await judgeWriteAttack(b, expectRefusal);
      if (name.startsWith('original') && problem === null) {
        const now = b.fake.readProc('asound/card0/pcm0p/xrun_debug');
        if (now !== '99999999999\n') problem = `the file now holds ${JSON.stringify(now)}`;
      }
      record(t, name, problem);
    } finally {
      b.cleanup();
    }
  }
}

// ------------------------------------------------- 2: check and read are one lookup

/** A node:fs whose first access to a path matching `hit` runs `swap` right after it. */
function swappingFs(hit: (p: string) => boolean, swap: () => void): JournalFs {
  let done = false;
  const after = <A extends unknown[], R>(fn: (...a: A) => R) =>
    ((...a: A): R => {
      const r = fn(...a);
      if (!done && typeof a[0] === 'string' && hit(a[0])) {
        done = true;
        swap();
      }
      return r;
    }) as never;
  return {
    ...nodeFs,
    lstatSync: after(nodeFs.lstatSync),
    openSync: after(nodeFs.openSync),
  } as JournalFs;
}

const doc = (command: string): string =>
  JSON.stringify({
    format: 'xrunhunt-settings-journal',
    version: 1,
    owner: { pid: 1, startTicks: 1, startedAt: 'x', toolVersion: 'x', command, temporary: false },
    entries: [],
  });

async function attackLookups(): Promise<void> {
  const t = tally('30.2 check and read are one lookup');
  // (a) journal file swapped for a link to a world-writable planted journal after the check
  {
    const d = mkdtempSync(join(work, 'swap-'));
    const j = join(d, 'j');
    mkdirSync(j, { mode: 0o700 });
    const file = join(j, 'manual.json');
    writeFileSync(file, doc('original'), { mode: 0o600 });
    writeFileSync(join(d, 'planted.json'), doc('planted'));
    chmodSync(join(d, 'planted.json'), 0o666);
    const fs = swappingFs(
      (p) => p.endsWith('manual.json'),
      () => {
        symlinkSync(join(d, 'planted.json'), `${file}.s`);
        renameSync(`${file}.s`, file);
      },
    );
    let got = '';
    try {
      got = readJournalFile(file, fs)?.owner.command ?? 'none';
    } catch (err) {
      got = `refused: ${(err as Error).message}`;
    }
    record(
      t,
      'journal file swapped for a link between check and read',
      got === 'planted' ? 'the planted journal was read' : null,
    );
  }
  // (b) journal folder swapped for a link to a 0777 folder after the check
  {
    const d = mkdtempSync(join(work, 'swapdir-'));
    const j = join(d, 'j');
    mkdirSync(j, { mode: 0o700 });
    writeFileSync(join(j, 'manual.json'), doc('original'), { mode: 0o600 });
    const evil = join(d, 'evil');
    mkdirSync(evil);
    chmodSync(evil, 0o777);
    writeFileSync(join(evil, 'manual.json'), doc('planted'), { mode: 0o600 });
    const fs = swappingFs(
      (p) => p === j,
      () => {
        renameSync(j, `${j}-old`);
        symlinkSync(evil, j);
      },
    );
    let got = '';
    try {
      got = readJournalFile(join(j, 'manual.json'), fs)?.owner.command ?? 'none';
    } catch (err) {
      got = `refused: ${(err as Error).message}`;
    }
    record(
      t,
      'journal folder swapped for a link between check and read',
      got === 'planted' ? 'the planted journal was read' : null,
    );
  }
  // (c) root with XDG_STATE_HOME = a link (to a root-owned folder) / a root-owned 1777 folder
  if (isRoot) {
    for (const [name, make] of [
      [
        'XDG_STATE_HOME is a symlink to a root-owned folder',
        (d: string) => {
          mkdirSync(join(d, 'real'), { mode: 0o755 });
          symlinkSync(join(d, 'real'), join(d, 'link'));
          return join(d, 'link');
        },
      ],
      [
        'XDG_STATE_HOME is a root-owned world-writable folder (a /tmp)',
        (d: string) => {
          mkdirSync(join(d, 'open'));
          chmodSync(join(d, 'open'), 0o1777);
          return join(d, 'open');
        },
      ],
    ] as const) {
      const d = mkdtempSync(join(work, 'xdg-'));
      const xdg = make(d);
      const r = await cli(['debug', 'status', '--json'], { XDG_STATE_HOME: xdg });
      const r2 = await cli(['debug', 'status'], { XDG_STATE_HOME: xdg });
      record(
        t,
        name,
        /ignoring XDG_STATE_HOME/.test(r2.stderr) && !stackTrace(r.stderr)
          ? null
          : `root used it: ${short(r2.stderr) || short(r2.stdout)}`,
      );
    }
  }
}

// ------------------------------------------------------------ 3: one lock per machine

async function attackLock(): Promise<void> {
  const t = tally('30.3 one settings lock per machine');
  if (!isRoot) {
    record(t, 'mount variants', null);
    return;
  }
  const { settingsLockFile } = await import('../src/proc/settings-lock.js');
  const d = mkdtempSync(join(work, 'mnt-'));
  const lockDir = join(d, 'locks');
  const machine = settingsLockFile('/proc', { lockDir });
  const mounts: string[] = [];
  const mountAt = (name: string, args: string[]): string | null => {
    const dir = join(d, name);
    mkdirSync(dir, { recursive: true });
    const r = spawnSync('mount', [...args, dir], { encoding: 'utf8' });
    if (r.status !== 0) return null;
    mounts.push(dir);
    return dir;
  };
  try {
    const cases: [string, string | null, boolean][] = [
      ['second procfs mount', mountAt('proc2', ['-t', 'proc', 'proc']), true],
      ['bind mount of /proc', mountAt('bound', ['--bind', '/proc']), true],
      ['rbind mount of /proc', mountAt('rbound', ['--rbind', '/proc']), true],
      ['sysfs mounted as the proc root', mountAt('sys2', ['-t', 'sysfs', 'sysfs']), true],
    ];
    const plain = join(d, 'plain');
    mkdirSync(plain);
    cases.push(['a plain folder (its own lock)', plain, false]);
    const link = join(d, 'link-to-proc');
    symlinkSync('/proc', link);
    cases.push(['a symlink to /proc', link, true]);
    for (const [name, dir, shares] of cases) {
      if (dir === null) {
        record(t, name, 'could not mount');
        continue;
      }
      const same = settingsLockFile(dir, { lockDir }) === machine;
      record(
        t,
        name,
        same === shares ? null : same ? 'shares the machine lock' : 'got its own lock',
      );
    }
    // End to end: `debug restore --proc-root <second procfs>` while another process holds the
    // machine lock for /proc (a holder that changes nothing: it only takes the lock).
    const p2 = cases[0]![1];
    if (p2) {
      const lockModule = join(repo, 'src/proc/settings-lock.ts');
      const code = `import { acquireSettingsLock } from ${JSON.stringify(lockModule)};
acquireSettingsLock('/proc', 'attack-issue30 holder');
process.stdout.write('held\\n');
setTimeout(() => {}, 20000);`;
      const holder = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', code],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const held = await new Promise<boolean>((resolve) => {
        holder.stdout.on('data', (b: Buffer) => b.toString().includes('held') && resolve(true));
        holder.once('close', () => resolve(false));
      });
      const state = mkdtempSync(join(work, 'st-'));
      const r = held
        ? await cli(['debug', 'restore', '--proc-root', p2], { XDG_STATE_HOME: state })
        : null;
      holder.kill('SIGKILL');
      record(
        t,
        'debug restore on a second procfs while /proc is held (end to end)',
        r === null
          ? 'the holder could not take the lock'
          : /another xrunhunt \(pid \d+, "attack-issue30 holder"/.test(r.stderr)
            ? null
            : `ran beside it: ${short(r.stderr + r.stdout)}`,
      );
    }
  } finally {
    for (const m of mounts.reverse()) spawnSync('umount', ['-l', m]);
  }
}

// ------------------------------------------------------------ 4+5: try values and names

/** Every file of a tree, path → text (what a refused `try` must leave as it was). */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of nodeFs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name);
    if (e.isFile()) files.set(p, readFileSync(p, 'utf8'));
  }
  return files;
}

async function attackTryValues(): Promise<void> {
  const t = tally('30.4+5 try values parsed exactly, quoted inert, refused before round A');
  const tree = createTryKnobTree();
  const state = mkdtempSync(join(work, 'state-'));
  const before = snapshot(tree.base);
  const specs = [
    'vm.dirty_bytes=99999999999999999999999G',
    'vm.dirty_bytes=1e9',
    'vm.dirty_bytes=64 M',
    'vm.dirty_bytes=0.3K',
    'vm.dirty_bytes=4096',
    'vm.dirty_background_bytes=18446744073709551616',
    'vm.swappiness= 10',
    'vm.swappiness=10\n',
    'vm.swappiness=201',
    'vm.swappiness=0x10',
    'vm.swappiness=99999999999999999999',
    'cpu.max_latency_us=-1',
    'cpu.max_latency_us=2147483648',
    'player.priority=+5',
    'player.priority=1.0',
    'load.cpu=0-99999999999',
    'load.cpu= 0',
    'irq.affinity=0-9',
    'thp=\u001b]0;pwned\u0007',
    'thp=always\u001b[2J',
    'scheduler.\u001b[2J=none',
    'scheduler.sda=\u009b31m',
    'cpufreq.governor=\r\u001b[1Axrunhunt: ok',
    'preempt=\u001b[2J',
    '\u001b]0;x\u0007=1',
    'vm.swappiness=1\u202e0',
  ];
  try {
    for (const spec of specs) {
      const started = Date.now();
      const r = await cli(['try', spec, ...tryRootArgs(tree)], { XDG_STATE_HOME: state }, 10_000);
      const ms = Date.now() - started;
      const changed = [...snapshot(tree.base)].filter(([p, v]) => before.get(p) !== v);
      record(
        t,
        JSON.stringify(spec),
        r.signal
          ? `hung (${r.signal})`
          : r.code !== 1
            ? `exit ${r.code}: ${short(r.stderr + r.stdout)}`
            : stackTrace(r.stderr)
              ? `stack trace: ${short(r.stderr)}`
              : // eslint-disable-next-line no-control-regex
                /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/.test(r.stderr + r.stdout)
                ? `control characters reached the terminal: ${JSON.stringify(r.stderr)}`
                : !/error: invalid|error: unknown knob|needs a reboot/.test(r.stderr)
                  ? `no clear refusal: ${short(r.stderr)}`
                  : changed.length > 0
                    ? `wrote ${changed.map(([p]) => p).join(', ')}`
                    : ms > 5000
                      ? `took ${ms} ms to refuse`
                      : null,
      );
    }
  } finally {
    tree.cleanup();
    rmSync(state, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!existsSync(BIN)) throw new Error('run "npm run build" first');
  try {
    await attackWrites();
    await attackLookups();
    await attackLock();
    await attackTryValues();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  printTallies(tallies.all, list);
}

await main();
