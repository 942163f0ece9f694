// serve's structured log and GET /schema, end to end: a real `xrunhunt serve` process on
// loopback, real uploads (one good, one duplicate, one refused with hostile text, and
// `submit` of a damaged bundle that must send nothing), then the log file read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliCommand, repoRoot, runCli } from '../helpers/cli.js';

const FIX = join(repoRoot, 'test/fixtures/bundles');

test('serve logs one JSON record per upload to --log-file, serves GET /schema; submit checks first', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-serve-log-'));
  const [cmd, ...pre] = cliCommand();
  const logFile = join(dir, 'serve.log');
  const args = ['serve', '--listen', '127.0.0.1:0', '--json', '--inbox', join(dir, 'inbox')];
  const child = spawn(cmd!, [...pre, ...args, '--log-file', logFile, '--log-level', 'debug'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (l) => {
        const rec = JSON.parse(l) as Record<string, unknown>;
        if (rec['type'] === 'listening') resolve(rec['url'] as string);
      });
      void exited.then((code) => reject(new Error(`serve exited ${code}`)));
    });
    const schema = await fetch(`${url}schema`);
    assert.equal(schema.status, 200);
    assert.equal(schema.headers.get('content-type'), 'application/schema+json');
    assert.equal(
      await schema.text(),
      readFileSync(join(repoRoot, 'schema/bundle-v2.schema.json'), 'utf8'),
    );
    const v1 = await fetch(`${url}schema?v=1`);
    assert.equal(v1.status, 200);
    assert.equal(
      await v1.text(),
      readFileSync(join(repoRoot, 'schema/bundle-v1.schema.json'), 'utf8'),
    );
    const good = readFileSync(join(FIX, 'session-ext4-writeback.json'));
    assert.equal((await fetch(url, { method: 'POST', body: good })).status, 201);
    assert.equal((await fetch(url, { method: 'POST', body: good })).status, 200);
    const hostile = JSON.stringify({ formatVersion: 1, tool: { name: 'x\u009b2J\nfake 201' } });
    assert.equal((await fetch(url, { method: 'POST', body: hostile })).status, 400);

    const broken = JSON.parse(good.toString()) as Record<string, unknown>;
    (broken['host'] as Record<string, unknown>)['preempt'] = 'sometimes';
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(broken));
    const sub = await runCli(['submit', url, join(dir, 'broken.json')]);
    assert.equal(sub.code, 1, sub.stderr);
    assert.match(sub.stderr, /host\.preempt: expected one of none\|voluntary\|full\|rt\|unknown/);

    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    const records = readFileSync(logFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of records) {
      assert.match(String(r['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(
        ['debug', 'info', 'warn', 'error'].includes(String(r['level'])),
        String(r['level']),
      );
      assert.equal(r['cmd'], 'serve');
    }
    const uploads = records.filter((r) => r['event'] === 'upload');
    // Exactly three: the broken bundle never left the submitting machine.
    assert.deepEqual(
      uploads.map((u) => [u['result'], u['status'], u['level']]),
      [
        ['accepted', 201, 'info'],
        ['duplicate', 200, 'info'],
        ['rejected', 400, 'warn'],
      ],
    );
    assert.match(String(uploads[0]!['id']), /^[0-9a-f]{64}$/);
    assert.equal(uploads[0]!['bytes'], good.length);
    assert.equal(uploads[0]!['client'], '127.0.0.1');
    assert.equal(typeof uploads[0]!['durationMs'], 'number');
    assert.doesNotMatch(String(uploads[2]!['error']), /[\u0080-\u009f\n]/);
    assert.deepEqual(
      records.filter((r) => r['event'] === 'stopped').map((r) => r['accepted']),
      [1],
    );
    assert.equal(readdirSync(join(dir, 'inbox')).filter((f) => f.endsWith('.json')).length, 1);
  } finally {
    clearTimeout(killer);
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve refuses an unusable --log-file and an unknown --log-level with what to do', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-serve-log-'));
  try {
    const inbox = ['--inbox', join(dir, 'inbox'), '--listen', '127.0.0.1:0'];
    const noDir = await runCli(['serve', ...inbox, '--log-file', join(dir, 'no/such/x.log')]);
    assert.equal(noDir.code, 1);
    assert.match(noDir.stderr, /cannot open the log file .*no\/such\/x\.log/);
    assert.doesNotMatch(noDir.stderr, /at .*\.ts:\d+/);
    const level = await runCli(['serve', ...inbox, '--log-level', 'loud']);
    assert.notEqual(level.code, 0);
    assert.match(level.stderr, /--log-level/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
