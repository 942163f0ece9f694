// watch next to a real JACK dummy server with a real client playing through it (aplay on
// plug:jack): JACK's dummy backend drives no kernel PCM, and this host has no /proc/asound,
// so there is no kernel stream to watch. watch must say exactly that — naming the running
// jackd — and exit 1 without changing anything.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../helpers/cli.js';
import { ensureJack, jackMissingReason, type JackServer } from '../helpers/jack.js';

const skip =
  jackMissingReason() ??
  (existsSync('/proc/asound')
    ? 'this host has kernel sound (/proc/asound): the JACK-only case cannot be shown here'
    : false);
let jack: JackServer | null = null;
let player: ChildProcess | null = null;
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-watch-jack-'));

before(async () => {
  if (skip) return;
  jack = await ensureJack();
  player = spawn(
    'aplay',
    ['-q', '-D', 'plug:jack', '-t', 'raw', '-f', 'S16_LE', '-r', '48000', '-c', '2', '/dev/zero'],
    {
      stdio: 'ignore',
    },
  );
  await sleep(1000);
});
after(async () => {
  if (player && player.exitCode === null) player.kill('SIGTERM');
  await jack?.stop();
  rmSync(work, { recursive: true, force: true });
});

test(
  'JACK dummy with a client playing: no kernel stream to watch, jackd named, exit 1, nothing written',
  { skip },
  async () => {
    assert.equal(player?.exitCode, null, 'the JACK client is playing');
    const out = join(work, 'out');
    const r = await runCli(['watch', '--duration', '2s', '--out', out], {
      env: { XDG_STATE_HOME: join(work, 'state') },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /xrunhunt: error: no kernel stream to watch: \/proc\/asound does not exist/,
    );
    assert.match(r.stderr, /jackd \(pid \d+\) is running but holds no kernel PCM open/);
    assert.match(r.stderr, /hint: .*xrunhunt session --device plug:jack/);
    assert.equal(r.stdout, '');
    assert.equal(existsSync(out), false, 'no bundle folder for a watch that never started');
  },
);
