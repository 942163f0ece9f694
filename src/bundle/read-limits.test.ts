// Bundle files are read only after the open file proved to be a regular file within the
// limit, and never more than the limit + 1 bytes: devices, FIFOs, huge and growing files,
// gzip bombs are refused by what they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { XrunhuntError } from '../errors.js';
import { parseBundleBytes, readBundleFileBytes } from './read.js';

const dir = fs.mkdtempSync(join(tmpdir(), 'xrh-read-limits-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

const refused = (re: RegExp) => (err: unknown) =>
  err instanceof XrunhuntError && re.test(err.message);

/** The real fs, counting the bytes asked for by readSync. */
function countingFs(): typeof fs & { asked: () => number } {
  let asked = 0;
  return Object.assign(Object.create(fs) as typeof fs, {
    readSync: ((fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, pos: null) => {
      asked += len;
      return fs.readSync(fd, buf, off, len, pos);
    }) as typeof fs.readSync,
    asked: () => asked,
  });
}

test('/dev/zero and a symlink to it are refused as character devices, nothing read', () => {
  const link = join(dir, 'zero.json');
  fs.symlinkSync('/dev/zero', link);
  for (const p of ['/dev/zero', link]) {
    const cfs = countingFs();
    assert.throws(
      () => readBundleFileBytes(p, 'bundle x', 1024, cfs),
      refused(/expected a bundle \(a regular file\), found a character device/),
    );
    assert.equal(cfs.asked(), 0);
  }
});

test('a FIFO without a writer is refused at once instead of hanging the open', () => {
  const fifo = join(dir, 'pipe.json');
  execFileSync('mkfifo', [fifo]);
  assert.throws(
    () => readBundleFileBytes(fifo, 'bundle p'),
    refused(/found a named pipe \(FIFO\)/),
  );
});

test('a 1.5 GB file is refused by its size before one byte is read', () => {
  const big = join(dir, 'big.json');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 1536 * 1024 * 1024); // sparse: costs no disk
  const cfs = countingFs();
  assert.throws(
    () => readBundleFileBytes(big, 'bundle big', undefined, cfs),
    refused(/1610612736 bytes is larger than the 67108864-byte limit/),
  );
  assert.equal(cfs.asked(), 0);
});

test('a file that grows while being read is cut at the limit + 1 byte and refused', () => {
  const f = join(dir, 'growing.json');
  fs.writeFileSync(f, 'x'.repeat(100));
  let grown = false;
  const growing = Object.assign(Object.create(fs) as typeof fs, {
    readSync: ((fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, pos: null) => {
      if (!grown) {
        fs.appendFileSync(f, 'y'.repeat(10_000));
        grown = true;
      }
      return fs.readSync(fd, buf, off, len, pos);
    }) as typeof fs.readSync,
  });
  assert.throws(
    () => readBundleFileBytes(f, 'bundle g', 1000, growing),
    refused(/grew past the 1000-byte limit/),
  );
  // Within the limit, growth is read in full.
  fs.writeFileSync(f, 'x'.repeat(100));
  grown = false;
  assert.equal(readBundleFileBytes(f, 'bundle g', 100_000, growing).bytes.length, 10_100);
});

test('an ordinary file is read whole, with the size and mtime of the open file', () => {
  const f = join(dir, 'ok.json');
  fs.writeFileSync(f, '{"a":1}');
  const r = readBundleFileBytes(f, 'bundle ok');
  assert.equal(r.bytes.toString(), '{"a":1}');
  assert.equal(r.size, 7);
  assert.equal(r.mtimeMs, fs.statSync(f).mtimeMs);
});

test('a gzip bomb stops decompressing at the limit', () => {
  const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024)); // ~8 KB of gzip → 8 MiB
  assert.ok(bomb.length < 64 * 1024);
  assert.throws(
    () => parseBundleBytes(bomb, 'b.json.gz', 1024 * 1024),
    refused(/decompresses to more than 1048576 bytes/),
  );
});

test('bytes quoted from invalid JSON cannot reach the terminal raw', () => {
  const text = 'X\x1b]0;pwned\x07\x1b[2J\rxrunhunt: forged \u009b2J';
  assert.throws(
    () => parseBundleBytes(Buffer.from(text), 'e.json'),
    (err: unknown) =>
      err instanceof XrunhuntError &&
      /not valid JSON/.test(err.message) &&
      // eslint-disable-next-line no-control-regex
      !/[\u0000-\u001f\u007f-\u009f]/.test(err.message),
  );
});
