import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderRunScript, shellQuote } from './guest-script.js';
import { parseInjectSpec } from './inject-spec.js';

test('shellQuote leaves plain words alone and makes everything else literal', () => {
  assert.equal(shellQuote('--period=64'), '--period=64');
  assert.equal(shellQuote("it's $HOME"), `'it'\\''s $HOME'`);
  // The real shell agrees: the quoted word comes back byte for byte.
  const word = `a b 'c' "d" $e \`f\` \\g`;
  assert.equal(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`]).toString(), word);
});

test('an argv command runs in a tmpfs work dir, copied to the results share after it ends', () => {
  const s = renderRunScript({
    command: { kind: 'argv', argv: ['node', '/x/bin/xrunhunt.js', 'play', '--period', '64'] },
  });
  assert.match(
    s,
    /^mkdir -p \/run\/xrunhunt-results && cd \/run\/xrunhunt-results \|\| exit 125$/m,
  );
  // Nothing is written to the 9p share while the command runs; everything is copied after.
  const runAt = s.search(/^node \/x\/bin/m);
  const copyAt = s.search(/^cp -a \/run\/xrunhunt-results\/\. \/mnt\/results\//m);
  assert.ok(runAt > 0 && copyAt > runAt, s);
  assert.match(s, /^export XRUNHUNT_SCRATCH_DIR=\/mnt\/scratch$/m);
  assert.match(s, /^node \/x\/bin\/xrunhunt\.js play --period 64$/m);
  assert.doesNotMatch(s, /insmod|taskset/);
});

test('injection loops insmod in the background, pins both to CPU 0 and stops after the command', () => {
  const s = renderRunScript({
    command: { kind: 'shell', line: 'aplay -D hw:0,0 x.wav; echo done' },
    inject: { spec: parseInjectSpec('lockup:10:irq'), modulePath: '/c/m/test_lockup.ko' },
    pinCpu: 0,
  });
  assert.match(
    s,
    /taskset -c 0 insmod \/c\/m\/test_lockup\.ko time_nsecs=10000000 .* disable_irq=1/,
  );
  assert.match(s, /^taskset -c 0 sh -c 'aplay -D hw:0,0 x\.wav; echo done'$/m);
  // Device interrupts (an emulated card's period interrupt) go to the injector's CPU first.
  assert.match(s, /^for f in \/proc\/irq\/\*\/smp_affinity_list; do echo 0 > "\$f"; done/m);
  const order = [
    'smp_affinity_list',
    'injector=$!',
    'taskset -c 0 sh -c',
    'touch "$stop"',
    'wait "$injector"',
    'exit "$rc"',
  ];
  const positions = order.map((o) => s.indexOf(o));
  assert.deepEqual(
    [...positions].sort((a, b) => a - b),
    positions,
  );
  assert.ok(positions.every((p) => p >= 0));
});

test('--inject-paused: the injector waits until the command creates $XRUNHUNT_LAB_INJECT_GO', () => {
  // Run for real in sh, with a stand-in insmod (a MOCK: it logs each round) and the guest's
  // /run paths moved into a temp folder.
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-inject-paused-'));
  try {
    mkdirSync(join(dir, 'bin'));
    writeFileSync(
      join(dir, 'bin', 'insmod'),
      `#!/bin/sh\necho round >> ${dir}/rounds\nsleep 0.05\n`,
    );
    chmodSync(join(dir, 'bin', 'insmod'), 0o755);
    const line = [
      `sleep 0.6; [ -s ${dir}/rounds ] && echo early`,
      'touch "$XRUNHUNT_LAB_INJECT_GO"',
      `i=0; while [ ! -s ${dir}/rounds ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done`,
      `[ -s ${dir}/rounds ] && echo resumed`,
    ].join('; ');
    const spec = { ...parseInjectSpec('lockup:10:irq'), startPaused: true };
    const s = renderRunScript({
      command: { kind: 'shell', line },
      inject: { spec, modulePath: '/m/test_lockup.ko' },
    })
      .replace(/^mkdir .*$/m, `cd ${dir}`)
      .replaceAll('/run/xrunhunt-lab-inject', `${dir}/inject`);
    const out = execFileSync('sh', ['-c', s], {
      env: { ...process.env, PATH: `${dir}/bin:${process.env['PATH']}` },
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    assert.doesNotMatch(out, /early/, 'no round before the command resumed it');
    assert.match(out, /resumed/);
    // Without --inject-paused the file exists from the start (the injector runs at once).
    const plain = renderRunScript({
      command: { kind: 'shell', line: 'true' },
      inject: { spec: parseInjectSpec('lockup:10:irq'), modulePath: '/m/test_lockup.ko' },
    });
    assert.match(plain, /^touch "\$XRUNHUNT_LAB_INJECT_GO"$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the generated script is valid sh and returns the inner exit code', () => {
  const s = renderRunScript({ command: { kind: 'shell', line: 'exit 7' } })
    .replace(/^cd .*$/m, 'cd /')
    .replace(/^mkdir .*$/m, '');
  let code = 0;
  try {
    execFileSync('sh', ['-c', s]);
  } catch (err) {
    code = (err as { status: number }).status;
  }
  assert.equal(code, 7);
});

test('the guest creates its root-owned journal folder before xrunhunt runs (root trusts only a folder it owns)', () => {
  const s = renderRunScript({ command: { kind: 'argv', argv: ['true'] } });
  const dir = execFileSync('mktemp', ['-d']).toString().trim();
  // The real shell, with the command swapped for a check that the folder exists as root's.
  const script = s
    .replace(/^export XDG_STATE_HOME=.*$/m, `export XDG_STATE_HOME=${dir}/state`)
    .replace(/^mkdir -p \/run\/xrunhunt-results.*$/m, `cd ${dir} || exit 125`)
    .replace(/^cp -a .*$/m, '')
    .replace(/^true$/m, 'test -d "$XDG_STATE_HOME" && stat -c %u:%a "$XDG_STATE_HOME"');
  const out = execFileSync('sh', ['-c', script]).toString().trim();
  assert.equal(out, `${process.getuid?.() ?? 0}:700`);
  execFileSync('rm', ['-rf', dir]);
});
