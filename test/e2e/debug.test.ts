// `xrunhunt debug` end to end: the real CLI as a child process against fake /proc trees,
// including a kill -9 in the middle of a temporary change and a non-root run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliCommand, repoRoot, runCli } from '../helpers/cli.js';
import { createFakeSystem, dummyCard, hdaCard, kernelConfigText } from '../helpers/fake-proc.js';

function setup(t: { after(fn: () => void): void }, mask = 0) {
  const fake = createFakeSystem({
    cards: [dummyCard({}, mask), hdaCard({}, mask)],
    proc: { 'sys/kernel/osrelease': '6.1.192-lab\n' },
  });
  const state = mkdtempSync(join(tmpdir(), 'xrunhunt-state-'));
  t.after(() => {
    fake.cleanup();
    rmSync(state, { recursive: true, force: true });
  });
  const env = { XDG_STATE_HOME: state };
  const mask0p = () => fake.readProc('asound/card0/pcm0p/xrun_debug').trim();
  const all = () =>
    ['card0/pcm0p', 'card0/pcm0c', 'card1/pcm0p', 'card1/pcm0c', 'card1/pcm3p'].map((p) =>
      fake.readProc(`asound/${p}/xrun_debug`).trim(),
    );
  return { fake, state, env, mask0p, all, root: ['--proc-root', fake.procRoot] };
}

const noStack = (stderr: string) => assert.doesNotMatch(stderr, /^\s+at /m, 'no stack trace');

test('status --json lists every stream with mask, bits and injection', async (t) => {
  const { env, root, fake } = setup(t, 3);
  const r = await runCli(['debug', 'status', '--json', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.available, true);
  assert.equal(doc.kernelRelease, '6.1.192-lab');
  assert.equal(doc.streams.length, 5);
  const p = doc.streams.find((s: { pcm: string }) => s.pcm === 'pcmC0D0p');
  assert.deepEqual(
    { ...p, bits: p.bits.map((b: { name: string }) => b.name) },
    {
      path: fake.proc('asound/card0/pcm0p/xrun_debug'),
      pcm: 'pcmC0D0p',
      card: 0,
      cardId: 'Dummy',
      cardName: 'Dummy',
      driver: 'Dummy',
      device: 0,
      stream: 'playback',
      pcmName: 'Dummy PCM',
      mask: 3,
      bits: ['BASIC', 'STACK'],
      notes: [],
      injection: [0, 1],
    },
  );
  assert.deepEqual(doc.saved, []);
});

test('on / off / restore: lasting changes, journaled originals, exact restore', async (t) => {
  const { env, root, all, state } = setup(t, 1);
  let r = await runCli(['debug', 'on', '--card', 'Dummy', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(all(), ['3', '3', '1', '1', '1']);
  assert.match(r.stderr, /stays until "xrunhunt debug restore"/);
  r = await runCli(['debug', 'off', '--pcm', 'pcmC1D3p', '--pcm', 'pcmC0D0p', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(all(), ['0', '3', '1', '1', '0']);
  r = await runCli(['debug', 'status', '--json', ...root], { env });
  const saved = JSON.parse(r.stdout).saved;
  assert.equal(saved.length, 1);
  assert.equal(saved[0].kind, 'manual');
  assert.equal(saved[0].entries.length, 3, 'pcmC0D0p journaled once, with its first original');
  r = await runCli(['debug', 'restore', '--json', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).restored.length, 3);
  assert.deepEqual(all(), ['1', '1', '1', '1', '1']);
  assert.deepEqual(readdirSync(join(state, 'xrunhunt')), []);
  r = await runCli(['debug', 'restore', ...root], { env });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /nothing to restore/);
});

/** Starts `debug on --for 60s` and resolves once it reports the change on stderr. */
function startTemporary(args: string[], env: NodeJS.ProcessEnv) {
  const [cmd, ...pre] = cliCommand();
  const child = spawn(cmd!, [...pre, 'debug', 'on', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/restoring (in|on)/.test(stderr)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exited early (${code}): ${stderr}`)));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, ready, exited, stderr: () => stderr };
}

test('kill -9 during "on --for": the journal survives and "debug restore" puts the originals back', async (t) => {
  const { env, root, all } = setup(t, 1);
  const run = startTemporary(['--for', '60s', '--card', '1', ...root], env);
  t.after(() => run.child.kill('SIGKILL'));
  await run.ready;
  assert.deepEqual(all(), ['1', '1', '3', '3', '3']);
  run.child.kill('SIGKILL');
  assert.equal((await run.exited).signal, 'SIGKILL');
  assert.deepEqual(all(), ['1', '1', '3', '3', '3'], 'a killed process restores nothing');
  let r = await runCli(['debug', 'status', '--json', ...root], { env });
  const saved = JSON.parse(r.stdout).saved;
  assert.equal(saved.length, 1);
  assert.equal(saved[0].kind, 'killed-session');
  assert.equal(saved[0].pid, run.child.pid);
  r = await runCli(['debug', 'restore', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(all(), ['1', '1', '1', '1', '1']);
});

test('kill -9, then the next changing command restores first and says so', async (t) => {
  const { env, root, all, mask0p } = setup(t, 1);
  const run = startTemporary(['--for', '60s', '--mask', '7', ...root], env);
  t.after(() => run.child.kill('SIGKILL'));
  await run.ready;
  assert.deepEqual(all(), ['7', '7', '7', '7', '7']);
  run.child.kill('SIGKILL');
  await run.exited;
  const r = await runCli(['debug', 'on', '--pcm', 'pcmC0D0p', '--for', '10ms', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`killed xrunhunt run \\(pid ${run.child.pid}, "debug on"`));
  assert.match(r.stderr, /restoring the original values/);
  assert.equal(mask0p(), '1');
  assert.deepEqual(all(), ['1', '1', '1', '1', '1']);
});

test('SIGTERM during "on --hold" restores and exits cleanly', async (t) => {
  const { env, root, mask0p, state } = setup(t, 0);
  const run = startTemporary(['--hold', '--pcm', 'pcmC0D0p', ...root], env);
  t.after(() => run.child.kill('SIGKILL'));
  await run.ready;
  assert.equal(mask0p(), '3');
  run.child.kill('SIGTERM');
  const { code } = await run.exited;
  assert.equal(code, 0, run.stderr());
  assert.equal(mask0p(), '0');
  assert.match(run.stderr(), /restored .*pcm0p\/xrun_debug = 0/);
  assert.deepEqual(readdirSync(join(state, 'xrunhunt')), []);
});

test('no xrun_debug: the error names the missing kernel options from /boot/config-<release>', async (t) => {
  const fake = createFakeSystem({
    cards: [dummyCard({}, null)],
    proc: { 'sys/kernel/osrelease': '6.1.0-57-amd64\n' },
    boot: { 'config-6.1.0-57-amd64': kernelConfigText({ xrunDebug: false }) },
  });
  t.after(() => fake.cleanup());
  const args = ['--proc-root', fake.procRoot, '--boot-root', fake.bootRoot];
  const r = await runCli(['debug', 'on', ...args], { env: { XDG_STATE_HOME: fake.base } });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /kernel 6\.1\.0-57-amd64 was built without CONFIG_SND_DEBUG, CONFIG_SND_PCM_XRUN_DEBUG/,
  );
  assert.match(r.stderr, /from .*boot\/config-6\.1\.0-57-amd64/);
  assert.match(r.stderr, /hint: .*xrunhunt lab/);
  noStack(r.stderr);
  const s = await runCli(['debug', 'status', '--json', ...args]);
  assert.equal(s.code, 0);
  const doc = JSON.parse(s.stdout);
  assert.equal(doc.available, false);
  assert.equal(doc.reason.reason, 'kernel-options');
  assert.deepEqual(doc.reason.missingOptions, ['CONFIG_SND_DEBUG', 'CONFIG_SND_PCM_XRUN_DEBUG']);
});

test('this host: status gives a clear answer, on fails cleanly without a stack trace', async () => {
  const state = mkdtempSync(join(tmpdir(), 'xrunhunt-state-'));
  try {
    const s = await runCli(['debug', 'status', '--json'], { env: { XDG_STATE_HOME: state } });
    assert.equal(s.code, 0, s.stderr);
    const doc = JSON.parse(s.stdout);
    if (!existsSync('/proc/asound')) {
      assert.equal(doc.available, false);
      assert.equal(doc.reason.reason, 'no-sound-support');
      const on = await runCli(['debug', 'on'], { env: { XDG_STATE_HOME: state } });
      assert.equal(on.code, 1);
      assert.match(
        on.stderr,
        /^xrunhunt: error: no \/proc\/asound: kernel .* (has no sound support|was built without sound support)/m,
      );
      noStack(on.stderr);
      const text = await runCli(['debug', 'status'], { env: { XDG_STATE_HOME: state } });
      assert.match(text.stdout, /xrun_debug: not available/);
    } else {
      assert.equal(typeof doc.available, 'boolean');
    }
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});

const canDropPrivileges =
  process.getuid?.() === 0 &&
  spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'true']).status ===
    0;

test(
  'not root: a write is refused with the permission needed, nothing changed, nothing journaled',
  { skip: canDropPrivileges ? false : 'needs root and setpriv to run the CLI as nobody' },
  (t) => {
    const { fake, all } = setup(t, 1);
    chmodSync(fake.base, 0o755);
    const state = mkdtempSync(join(tmpdir(), 'xrunhunt-nobody-'));
    chmodSync(state, 0o777);
    t.after(() => rmSync(state, { recursive: true, force: true }));
    const [cmd, ...pre] = cliCommand();
    const r = spawnSync(
      'setpriv',
      [
        '--reuid=nobody',
        '--regid=nogroup',
        '--clear-groups',
        'env',
        `XDG_STATE_HOME=${state}`,
        // The per-user settings lock folder (TMPDIR/xrunhunt-UID) goes in the test's folder too.
        `TMPDIR=${state}`,
        'HOME=/nonexistent',
        cmd!,
        ...pre,
        'debug',
        'on',
        '--proc-root',
        fake.procRoot,
      ],
      { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /cannot write .*xrun_debug: permission denied/);
    assert.match(r.stderr, /hint: changing kernel settings needs root/);
    noStack(r.stderr);
    assert.deepEqual(all(), ['1', '1', '1', '1', '1']);
    assert.deepEqual(readdirSync(join(state, 'xrunhunt')), [], 'no stale journal');
  },
);

test('a setting that cannot be restored is reported (exit 1) and stays journaled', async (t) => {
  const { env, root, fake, state } = setup(t, 0);
  let r = await runCli(['debug', 'on', '--pcm', 'pcmC0D0p', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  rmSync(fake.proc('asound/card0/pcm0p/xrun_debug'));
  // a directory where the file was: unwritable even for root
  spawnSync('mkdir', [fake.proc('asound/card0/pcm0p/xrun_debug')]);
  r = await runCli(['debug', 'restore', ...root], { env });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /FAILED to restore .*pcm0p\/xrun_debug = 0: .*is a directory/);
  assert.deepEqual(readdirSync(join(state, 'xrunhunt')), ['manual.json']);
});

test('a corrupt journal is a clear error, not a crash', async (t) => {
  const { env, state, root } = setup(t, 0);
  spawnSync('mkdir', ['-p', join(state, 'xrunhunt')]);
  writeFileSync(join(state, 'xrunhunt', 'manual.json'), '{"truncated":');
  // The fake tree's own lock: the real /proc's is another test file's business.
  const r = await runCli(['debug', 'restore', ...root], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /settings journal .*manual\.json is unreadable/);
  noStack(r.stderr);
});

test('selection errors name the streams that exist; bad masks are usage errors', async (t) => {
  const { env, root } = setup(t, 0);
  let r = await runCli(['debug', 'on', '--pcm', 'pcmC9D0p', ...root], { env });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /no stream with xrun_debug matches --pcm pcmC9D0p; streams with xrun_debug: pcmC0D0c/,
  );
  r = await runCli(['debug', 'on', '--mask', 'lots', ...root], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /expected a mask such as 3/);
  r = await runCli(['debug', 'on', '--for', '1s', '--hold', ...root], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /either --for DURATION or --hold/);
});

test('inject writes 1 to xrun_injection of the chosen substream', async (t) => {
  const { env, root, fake } = setup(t, 3);
  let r = await runCli(['debug', 'inject', '--pcm', 'pcmC0D0p', '--sub', '1', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fake.readProc('asound/card0/pcm0p/sub1/xrun_injection'), '1');
  assert.equal(fake.readProc('asound/card0/pcm0p/sub0/xrun_injection'), '');
  assert.match(r.stderr, /only forces an xrun on a running stream/);
  r = await runCli(['debug', 'inject', '--pcm', 'pcmC0D0p', '--sub', '5', ...root], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /has no sub5\/xrun_injection \(substreams with it: 0, 1\)/);
  r = await runCli(['debug', 'inject', ...root], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /needs --pcm NAME/);
});

// ---- issue 14: planted journals, concurrent runs, corrupt state ----

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
/** Above pid_max's ceiling (4194304): never a live process. */
const DEAD_PID = 4_194_304 + 99;

function plantedJournal(entries: { path: string; original: string; kind: string }[]): string {
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
    },
    entries: entries.map((e) => ({ ...e, recordedAt: at })),
  });
}

test(
  'finding 1: a journal in a folder owned by nobody (0777) is refused; the victim file keeps its bytes',
  { skip: isRoot ? false : 'needs root to chown a folder to nobody' },
  async (t) => {
    const { fake, env, root, all } = setup(t, 1);
    const victim = join(fake.base, 'victim');
    writeFileSync(victim, 'precious\n');
    // XDG_STATE_HOME is root's (so it is used), its xrunhunt folder is nobody's and 0777
    const jdir = join(env.XDG_STATE_HOME, 'xrunhunt');
    mkdirSync(jdir);
    chownSync(jdir, NOBODY, NOBODY);
    chmodSync(jdir, 0o777);
    const file = join(jdir, `session-${DEAD_PID}.json`);
    writeFileSync(file, plantedJournal([{ path: victim, original: 'X', kind: 'xrun_debug' }]));
    chownSync(file, NOBODY, NOBODY);
    const r = await runCli(['debug', 'on', '--for', '1s', ...root], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /refusing the journal folder .*xrunhunt: it is owned by uid 65534, not by the running user \(uid 0\)/,
    );
    assert.match(r.stderr, /remove it if you did not create it/);
    noStack(r.stderr);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
    assert.deepEqual(all(), ['1', '1', '1', '1', '1'], 'nothing changed either');
    const rr = await runCli(['debug', 'restore', ...root], { env });
    assert.equal(rr.code, 1);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  },
);

test(
  "finding 1: root ignores an XDG_STATE_HOME owned by another user (sudo -E keeps the user's)",
  { skip: isRoot ? false : 'needs root' },
  async (t) => {
    const { fake, root } = setup(t, 1);
    const victim = join(fake.base, 'victim');
    writeFileSync(victim, 'precious\n');
    const evil = mkdtempSync(join(tmpdir(), 'xrunhunt-evil-'));
    t.after(() => rmSync(evil, { recursive: true, force: true }));
    mkdirSync(join(evil, 'xrunhunt'));
    writeFileSync(
      join(evil, 'xrunhunt', 'manual.json'),
      plantedJournal([{ path: victim, original: 'X', kind: 'xrun_debug' }]),
    );
    for (const p of [evil, join(evil, 'xrunhunt'), join(evil, 'xrunhunt', 'manual.json')]) {
      chownSync(p, NOBODY, NOBODY);
      chmodSync(p, 0o777);
    }
    // status only reads: it must not even look in the user's folder
    const s = await runCli(['debug', 'status', '--json', ...root], {
      env: { XDG_STATE_HOME: evil },
    });
    assert.equal(s.code, 0, s.stderr);
    const doc = JSON.parse(s.stdout);
    assert.ok(
      !JSON.stringify(doc).includes(evil),
      `the user's folder is not read: ${JSON.stringify(doc.saved)} ${JSON.stringify(doc.warnings)}`,
    );
    const text = await runCli(['debug', 'status', ...root], { env: { XDG_STATE_HOME: evil } });
    assert.match(
      text.stderr,
      /note: ignoring XDG_STATE_HOME=.*xrunhunt-evil-.*: it belongs to uid 65534, not root/,
    );
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  },
);

test('finding 1: a trusted-looking journal naming a file outside the proc root is refused, not written', async (t) => {
  const { fake, env, root, all, state } = setup(t, 1);
  const victim = join(fake.base, 'victim');
  writeFileSync(victim, 'precious\n');
  mkdirSync(join(state, 'xrunhunt'), { mode: 0o700 });
  const file = join(state, 'xrunhunt', `session-${DEAD_PID}.json`);
  writeFileSync(
    file,
    plantedJournal([
      { path: fake.proc('asound/card0/pcm0p/xrun_debug'), original: '1', kind: 'xrun_debug' },
      { path: victim, original: 'X', kind: 'xrun_debug' },
    ]),
    { mode: 0o600 },
  );
  let r = await runCli(['debug', 'on', '--pcm', 'pcmC1D0p', '--for', '10ms', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /refusing to restore .*session-4194403\.json/);
  assert.match(r.stderr, /victim is not a setting xrunhunt changes/);
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  // the refused journal names pcmC0D0p: changing it now would journal a non-original
  r = await runCli(['debug', 'on', '--pcm', 'pcmC0D0p', '--for', '10ms', ...root], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /still holds the original of .*card0\/pcm0p\/xrun_debug/);
  r = await runCli(['debug', 'restore', '--json', ...root], { env });
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).refused.length, 1);
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  assert.ok(existsSync(file), 'left for the user to inspect');
  assert.deepEqual(all(), ['1', '1', '1', '1', '1']);
});

test('finding 3: a corrupt journal blocks "debug on" instead of journaling changed values as originals', async (t) => {
  const { env, root, all, state } = setup(t, 1);
  mkdirSync(join(state, 'xrunhunt'), { mode: 0o700 });
  writeFileSync(join(state, 'xrunhunt', 'manual.json'), '{"truncated":', { mode: 0o600 });
  for (const args of [[], ['--for', '10ms']]) {
    const r = await runCli(['debug', 'on', ...args, ...root], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /refusing to change kernel settings: the settings journal .*manual\.json is unreadable/,
    );
    noStack(r.stderr);
    assert.deepEqual(all(), ['1', '1', '1', '1', '1']);
  }
  assert.equal(readFileSync(join(state, 'xrunhunt', 'manual.json'), 'utf8'), '{"truncated":');
});

test('finding 16: a temporary journal file left by a kill -9 mid-write is removed at the next start', async (t) => {
  const { env, root, state } = setup(t, 1);
  mkdirSync(join(state, 'xrunhunt'), { mode: 0o700 });
  const tmp = join(state, 'xrunhunt', `session-${DEAD_PID}.json.tmp-${DEAD_PID}`);
  writeFileSync(tmp, '{"format":"xrunhunt-settings-jou', { mode: 0o600 });
  const r = await runCli(['debug', 'on', '--for', '10ms', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /removed .*\.tmp-4194403, left half-written by a killed run/);
  assert.equal(existsSync(tmp), false);
  assert.deepEqual(readdirSync(join(state, 'xrunhunt')), []);
});

const canChattr = (() => {
  if (!isRoot) return false;
  const d = mkdtempSync(join(tmpdir(), 'xrunhunt-chattr-'));
  try {
    writeFileSync(join(d, 'f'), '');
    const ok = spawnSync('chattr', ['+i', join(d, 'f')]).status === 0;
    if (ok) spawnSync('chattr', ['-i', join(d, 'f')]);
    return ok;
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
})();

test(
  'finding 16: an immutable xrun_debug as root says so, not "needs root"',
  { skip: canChattr ? false : 'needs root and a file system with chattr +i' },
  async (t) => {
    const { env, root, fake, all } = setup(t, 1);
    const f = fake.proc('asound/card0/pcm0p/xrun_debug');
    spawnSync('chattr', ['+i', f]);
    t.after(() => spawnSync('chattr', ['-i', f]));
    const r = await runCli(['debug', 'on', '--pcm', 'pcmC0D0p', ...root], { env });
    spawnSync('chattr', ['-i', f]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /operation not permitted \(EPERM\), although xrunhunt runs as root/);
    assert.match(r.stderr, /immutable or append-only/);
    assert.doesNotMatch(r.stderr, /needs root/);
    noStack(r.stderr);
    assert.deepEqual(all(), ['1', '1', '1', '1', '1']);
  },
);

const STREAMS = ['card0/pcm0p', 'card0/pcm0c', 'card1/pcm0p', 'card1/pcm0c', 'card1/pcm3p'];
const ORIGINALS = ['1', '0', '2', '5', '7'];

/** The originals a successful `debug on` reported (`pcmC0D0p: xrun_debug 1 -> 3`), in stream order. */
function reportedFrom(stdout: string): string[] {
  const order = ['pcmC0D0p', 'pcmC0D0c', 'pcmC1D0p', 'pcmC1D0c', 'pcmC1D3p'];
  const from = new Map(
    [...stdout.matchAll(/^(pcmC\d+D\d+[pc]): xrun_debug (\S+) -> /gm)].map((m) => [m[1]!, m[2]!]),
  );
  return order.map((p) => from.get(p) ?? 'missing');
}

function setupOriginals(t: { after(fn: () => void): void }) {
  const s = setup(t, 0);
  STREAMS.forEach((p, i) =>
    writeFileSync(s.fake.proc(`asound/${p}/xrun_debug`), `${ORIGINALS[i]}\n`),
  );
  const other = mkdtempSync(join(tmpdir(), 'xrunhunt-state2-'));
  t.after(() => rmSync(other, { recursive: true, force: true }));
  return { ...s, otherEnv: { XDG_STATE_HOME: other } };
}

for (const folders of ['the same journal folder', 'different journal folders'] as const) {
  test(`finding 2: a run that starts while another changes settings is refused (${folders})`, async (t) => {
    const { env, otherEnv, root, all } = setupOriginals(t);
    const first = startTemporary(['--for', '60s', '--mask', '3', ...root], env);
    t.after(() => first.child.kill('SIGKILL'));
    await first.ready;
    const r = await runCli(['debug', 'on', '--for', '10ms', '--mask', '7', ...root], {
      env: folders === 'the same journal folder' ? env : otherEnv,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `another xrunhunt \\(pid ${first.child.pid}, "debug on"[^)]*\\) is changing kernel settings`,
      ),
    );
    noStack(r.stderr);
    assert.deepEqual(all(), ['3', '3', '3', '3', '3'], 'the refused run changed nothing');
    first.child.kill('SIGTERM');
    assert.equal((await first.exited).code, 0, first.stderr());
    assert.deepEqual(all(), ORIGINALS);
  });
}

test('finding 2: two "debug on --for" started at the same instant never lose the originals', async (t) => {
  // 3 trials per folder layout: one run gets the lock (and holds it 2 s); the other waits up to
  // 1 s for it and is refused — or, when the loaded machine started it over a second late, runs
  // after the first has restored. Either way a run that changed settings must have journaled
  // the true originals, and the end state is the originals.
  let refused = 0;
  for (let trial = 0; trial < 6; trial++) {
    const { env, otherEnv, root, all } = setupOriginals(t);
    const args = ['debug', 'on', '--for', '2s', '--mask', '3', ...root];
    const runs = await Promise.all([
      runCli(args, { env }),
      runCli(args, { env: trial % 2 === 0 ? env : otherEnv }),
    ]);
    for (const r of runs) {
      noStack(r.stderr);
      if (r.code === 0) {
        assert.deepEqual(
          reportedFrom(r.stdout),
          ORIGINALS,
          `trial ${trial}: journaled a non-original`,
        );
      } else {
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /another xrunhunt \(pid \d+, "debug on"/);
        refused++;
      }
    }
    assert.ok(
      runs.some((r) => r.code === 0),
      `trial ${trial}: one run must get the lock`,
    );
    assert.deepEqual(all(), ORIGINALS, `trial ${trial}: final masks`);
  }
  t.diagnostic(`${refused} of 6 second runs were refused (the rest ran after the first ended)`);
});

test('status quotes what a journal says: control characters in it cannot drive the terminal', async (t) => {
  const { env, root, state, fake } = setup(t, 1);
  mkdirSync(join(state, 'xrunhunt'), { mode: 0o700 });
  const doc = JSON.parse(
    plantedJournal([
      {
        path: fake.proc('asound/card0/pcm0p/xrun_debug'),
        original: '1\u001b[2J',
        kind: 'xrun_debug',
      },
    ]),
  );
  doc.owner.command = 'session\u001b]0;owned\u0007\nxrunhunt: all fine';
  writeFileSync(join(state, 'xrunhunt', `session-${DEAD_PID}.json`), JSON.stringify(doc), {
    mode: 0o600,
  });
  const r = await runCli(['debug', 'status', ...root], { env });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout + r.stderr;
  assert.ok(!out.includes('\u001b') && !out.includes('\u0007'), 'no raw ESC/BEL');
  assert.doesNotMatch(r.stdout, /^xrunhunt: all fine/m, 'no forged line');
  assert.match(
    r.stdout,
    /left by a killed run \(pid 4194403, "session\\x1b\]0;owned\\x07\\nxrunhunt: all fine"\)/,
  );
});

test('a lasting change is not added to a manual journal written for another --proc-root', async (t) => {
  const a = setup(t, 1);
  const b = setup(t, 2);
  let r = await runCli(['debug', 'on', '--pcm', 'pcmC0D0p', ...a.root], { env: a.env });
  assert.equal(r.code, 0, r.stderr);
  r = await runCli(['debug', 'on', '--pcm', 'pcmC0D0p', ...b.root], { env: a.env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /refusing to add to the settings journal .*manual\.json: .* is not a setting/,
  );
  assert.equal(b.mask0p(), '2', 'the other tree is untouched');
  r = await runCli(['debug', 'restore', ...a.root], { env: a.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(a.mask0p(), '1');
});

test('debug restore while another run holds the settings lock is refused and changes nothing', async (t) => {
  const { env, otherEnv, root, all } = setupOriginals(t);
  const first = startTemporary(['--for', '60s', '--mask', '3', ...root], otherEnv);
  t.after(() => first.child.kill('SIGKILL'));
  await first.ready;
  const r = await runCli(['debug', 'restore', ...root], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`another xrunhunt \\(pid ${first.child.pid}, "debug on"`));
  noStack(r.stderr);
  assert.deepEqual(all(), ['3', '3', '3', '3', '3']);
  first.child.kill('SIGTERM');
  assert.equal((await first.exited).code, 0, first.stderr());
  assert.deepEqual(all(), ORIGINALS);
});

// Issue 30 item 1: what is written must pass the trust restore applies, before the first write.
for (const variant of ['symlinked xrun_debug file', 'symlinked card0 folder'] as const) {
  test(`issue 30: "debug on" refuses a ${variant} and writes nothing outside the tree`, async (t) => {
    const { env, fake, state, mask0p } = setup(t, 1);
    const victim = join(fake.base, 'victim');
    writeFileSync(victim, '7\n'); // a number: it reads as a mask
    if (variant === 'symlinked xrun_debug file') {
      const file = fake.proc('asound/card1/pcm0p/xrun_debug');
      rmSync(file);
      symlinkSync(victim, file);
    } else {
      const outside = join(fake.base, 'outside-card');
      cpSync(fake.proc('asound/card1'), outside, { recursive: true });
      writeFileSync(join(outside, 'pcm0p', 'xrun_debug'), '1\n');
      rmSync(fake.proc('asound/card1'), { recursive: true });
      symlinkSync(outside, fake.proc('asound/card1'));
    }
    const r = await runCli(['debug', 'on', '--proc-root', fake.procRoot], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /symbolic link/);
    noStack(r.stderr);
    assert.equal(readFileSync(victim, 'utf8'), '7\n', 'the victim keeps its bytes');
    if (variant === 'symlinked card0 folder')
      assert.equal(readFileSync(join(fake.base, 'outside-card/pcm0p/xrun_debug'), 'utf8'), '1\n');
    assert.equal(mask0p(), '1', 'all or nothing: card0 is back to its original');
    // Nothing was stranded: a restore has nothing it refuses.
    const back = await runCli(['debug', 'restore', '--proc-root', fake.procRoot], { env });
    assert.equal(back.code, 0, back.stderr);
    assert.ok(
      !existsSync(join(state, 'xrunhunt', 'manual.json')) ||
        JSON.parse(readFileSync(join(state, 'xrunhunt', 'manual.json'), 'utf8')).entries.length ===
          0,
    );
  });
}

test('issue 30: "debug on" never writes a value it could not restore (an original out of range)', async (t) => {
  const { env, fake, root } = setup(t, 0);
  fake.writeProc('asound/card0/pcm0p/xrun_debug', '99999999999\n');
  const r = await runCli(['debug', 'on', '--pcm', 'pcmC0D0p', ...root], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /99999999999/);
  assert.match(r.stderr, /not an xrun_debug mask|could not be restored|not restorable/);
  noStack(r.stderr);
  assert.equal(fake.readProc('asound/card0/pcm0p/xrun_debug'), '99999999999\n');
});
