import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { XrunhuntError } from '../errors.js';
import { createScrubber } from './scrub.js';
import {
  bundleFileKind,
  folderScrubWarnings,
  scrubBundleFolder,
  scrubEventLogFile,
  scrubNdjsonLine,
  scrubTextFile,
} from './scrub-folder.js';

const scrubber = createScrubber({ hostnames: ['studio-pc'], users: ['alice'] });

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-scrub-folder-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test('file kinds are chosen from the name', () => {
  assert.equal(bundleFileKind('bundle.json.gz'), 'bundle');
  assert.equal(bundleFileKind('events.ndjson'), 'ndjson');
  assert.equal(bundleFileKind('report.json'), 'json');
  assert.equal(bundleFileKind('report.HTML'), 'html');
  assert.equal(bundleFileKind('kernel.log.1.gz'), 'text-gz');
  assert.equal(bundleFileKind('kernel.log'), 'text');
  assert.equal(bundleFileKind('README'), 'sniff');
});

test('an NDJSON line is scrubbed as JSON, so an escape cannot hide a name', () => {
  const line = JSON.stringify({ type: 'warning', timeMs: 1, message: 'a\nalice\tb /home/alice' });
  assert.equal(
    scrubNdjsonLine(line, scrubber),
    JSON.stringify({ type: 'warning', timeMs: 1, message: 'a\n<user>\tb /home/<user>' }),
  );
  // Keys are scrubbed too (records keyed by path or name).
  assert.equal(scrubNdjsonLine('{"/home/alice/x":1}', scrubber), '{"/home/<user>/x":1}');
  // A line cut short by a crash is not JSON: scrubbed as text, kept otherwise.
  assert.equal(
    scrubNdjsonLine('{"message":"alice at 10.0.0', scrubber),
    '{"message":"<user> at 10.0.0',
  );
});

test(
  'scrubEventLogFile rewrites the whole log atomically: tail kept, chunk boundaries safe',
  withDir(async (dir) => {
    const path = join(dir, 'events.ndjson');
    // Over 256 KiB (one read chunk) so lines and identifiers straddle chunk boundaries.
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) {
      lines.push(
        JSON.stringify({
          type: 'warning',
          timeMs: i,
          message: `studio-pc ${i} /home/alice/take${i}.wav`,
        }),
      );
    }
    const body = lines.join('\n') + '\n' + '{"type":"warning","timeMs":1,"message":"cut alice';
    writeFileSync(path, body);
    chmodSync(path, 0o640);
    const inode = statSync(path).ino;
    await scrubEventLogFile(path, scrubber);
    const out = readFileSync(path, 'utf8');
    assert.ok(body.length > 256 * 1024);
    assert.ok(!/alice|studio-pc/.test(out), 'no name survives anywhere in the file');
    const outLines = out.split('\n');
    assert.equal(outLines.length, lines.length + 1);
    assert.equal(
      outLines[4321],
      JSON.stringify({
        type: 'warning',
        timeMs: 4321,
        message: '<host> 4321 /home/<user>/take4321.wav',
      }),
    );
    assert.equal(
      outLines.at(-1),
      '{"type":"warning","timeMs":1,"message":"cut <user>',
      'tail kept, no newline added',
    );
    assert.notEqual(statSync(path).ino, inode, 'replaced by rename, not rewritten in place');
    assert.equal(statSync(path).mode & 0o777, 0o640, 'mode kept');
    assert.deepEqual(readdirSync(dir), ['events.ndjson'], 'no temp file left');
  }),
);

test(
  'gzipped text stays gzipped; a CRLF log keeps its line ends',
  withDir(async (dir) => {
    const path = join(dir, 'serial-console.log');
    writeFileSync(path, 'usb 1-1: SerialNumber: Y8ABCDEF1234\r\nalice\r\n');
    await scrubTextFile(path, scrubber);
    assert.equal(readFileSync(path, 'utf8'), 'usb 1-1: SerialNumber: <serial>\r\n<user>\r\n');
    const gz = join(dir, 'kern.log.1.gz');
    writeFileSync(gz, gzipSync('Dec  1 10:00:00 studio-pc kernel: alice\n'));
    await scrubTextFile(gz, scrubber, { gzip: true });
    assert.equal(
      gunzipSync(readFileSync(gz)).toString(),
      'Dec  1 10:00:00 <host> kernel: <user>\n',
    );
  }),
);

test(
  'special files are never opened; a folder that is not one is a clear error',
  withDir(async (dir) => {
    const fifo = join(dir, 'pipe.log');
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO for reading would block forever: both paths must refuse it first.
    await assert.rejects(scrubEventLogFile(fifo, scrubber), (err: unknown) => {
      assert.ok(err instanceof XrunhuntError);
      assert.match(err.message, /expected an event log \(a regular file\), found a named pipe/);
      return true;
    });
    const r = await scrubBundleFolder(dir, scrubber);
    assert.deepEqual(r.skipped, [{ name: 'pipe.log', reason: 'not a regular file' }]);

    await assert.rejects(scrubBundleFolder(join(dir, 'missing'), scrubber), (err: unknown) => {
      assert.ok(err instanceof XrunhuntError);
      assert.equal(err.code, 'not-found');
      assert.match(err.message, /expected a bundle folder/);
      return true;
    });
    writeFileSync(join(dir, 'plain.txt'), 'x');
    await assert.rejects(scrubBundleFolder(join(dir, 'plain.txt'), scrubber), /found a file/);
  }),
);

test(
  'a corrupt bundle is reported as failed and the other files are still scrubbed',
  withDir(async (dir) => {
    writeFileSync(join(dir, 'bundle.json.gz'), Buffer.from([0x1f, 0x8b, 8, 0, 1, 2]));
    writeFileSync(join(dir, 'kernel.log'), 'Dec  1 10:00:00 studio-pc kernel: alice\n');
    writeFileSync(join(dir, `.bundle.json.gz.${process.pid}.0a1b2c3d.tmp`), 'in progress');
    // A writer that died mid-write: its pid is free (spawned, reaped, so no longer alive).
    const deadPid = Number(execFileSync('sh', ['-c', 'echo $$']).toString().trim());
    writeFileSync(join(dir, `.events.ndjson.${deadPid}.0a1b2c3d.tmp`), 'alice partial');
    const r = await scrubBundleFolder(dir, scrubber);
    assert.deepEqual(r.scrubbed, ['kernel.log']);
    assert.equal(r.failed.length, 1);
    assert.equal(r.failed[0]!.name, 'bundle.json.gz');
    assert.match(r.failed[0]!.error, /gzip/);
    assert.deepEqual(r.skipped, [
      {
        name: `.bundle.json.gz.${process.pid}.0a1b2c3d.tmp`,
        reason: 'temporary file of a writer still at work',
      },
      {
        name: `.events.ndjson.${deadPid}.0a1b2c3d.tmp`,
        reason: 'stale temporary file of a crashed writer: removed',
      },
    ]);
    assert.ok(!readdirSync(dir).includes(`.events.ndjson.${deadPid}.0a1b2c3d.tmp`));
    assert.equal(
      readFileSync(join(dir, 'kernel.log'), 'utf8'),
      'Dec  1 10:00:00 <host> kernel: <user>\n',
    );
  }),
);

test(
  'text that is not UTF-8 is rewritten byte for byte; binary gzip and files are left alone',
  withDir(async (dir) => {
    const latin1 = join(dir, 'kern.log');
    // "café" in latin1 (0xE9) is not valid UTF-8: decoding it as UTF-8 would turn it into U+FFFD.
    writeFileSync(
      latin1,
      Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' alice\n')]),
    );
    assert.equal(await scrubTextFile(latin1, scrubber), true);
    assert.deepEqual(
      readFileSync(latin1),
      Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' <user>\n')]),
    );
    const tarGz = join(dir, 'capture.tar.gz');
    const bytes = gzipSync(Buffer.concat([Buffer.from('alice'), Buffer.alloc(512)]));
    writeFileSync(tarGz, bytes);
    const r = await scrubBundleFolder(dir, scrubber);
    assert.deepEqual(r.skipped, [
      { name: 'capture.tar.gz', reason: 'binary file (holds NUL bytes): not scrubbed' },
    ]);
    assert.deepEqual(readFileSync(tarGz), bytes, 'binary archive untouched');
  }),
);

test('folder scrub warnings name what still holds identifiers and what was left alone', () => {
  const w = folderScrubWarnings('/out', {
    scrubbed: ['kernel.log'],
    skipped: [
      { name: 'capture.bin', reason: 'binary file (holds NUL bytes): not scrubbed' },
      { name: '.x.1.0a1b2c3d.tmp', reason: 'stale temporary file of a crashed writer: removed' },
    ],
    failed: [{ name: 'bundle\x1b[2J.json.gz', error: 'the gzip data is corrupt' }],
  });
  assert.deepEqual(w, [
    'could not scrub /out/bundle\\x1b[2J.json.gz (the gzip data is corrupt): it may still hold host names, user names or serial numbers; check it before attaching the folder',
    'not scrubbed: /out/capture.bin: binary file (holds NUL bytes): not scrubbed',
  ]);
});
