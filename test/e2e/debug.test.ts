// `xrunhunt debug` end to end: the real CLI as a child process against fake /proc trees,
// including a kill -9 in the middle of a temporary change and a non-root run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
  const { env, state } = setup(t, 0);
  spawnSync('mkdir', ['-p', join(state, 'xrunhunt')]);
  writeFileSync(join(state, 'xrunhunt', 'manual.json'), '{"truncated":');
  const r = await runCli(['debug', 'restore'], { env });
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
