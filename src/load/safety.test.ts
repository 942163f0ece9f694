import { test } from 'node:test';
import assert from 'node:assert/strict';
import { XrunhuntError } from '../errors.js';
import {
  checkDiskFloor,
  checkMemory,
  defaultDiskFloor,
  maxMemoryLoad,
  parseMeminfo,
} from './safety.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

test('the disk floor is 10% of the filesystem or 1 GiB, whichever is larger', () => {
  assert.equal(defaultDiskFloor(100 * GiB), 10 * GiB);
  assert.equal(defaultDiskFloor(4 * GiB), 1 * GiB);
});

test('a disk load that keeps the floor is allowed; one that crosses it is refused with numbers', () => {
  const space = { totalBytes: 20 * GiB, availableBytes: 5 * GiB };
  checkDiskFloor(space, 2 * GiB, 2 * GiB, '/scratch');
  assert.throws(
    () => checkDiskFloor(space, 4 * GiB, 2 * GiB, '/scratch'),
    (err: unknown) => {
      assert.ok(err instanceof XrunhuntError);
      assert.equal(err.code, 'resource');
      assert.match(
        err.message,
        /in \/scratch: the load needs 4\.0 GiB, 5\.0 GiB of 20\.0 GiB is free/,
      );
      assert.match(err.message, /keeps at least 2\.0 GiB free/);
      assert.match(err.hint ?? '', /--min-free/);
      return true;
    },
  );
});

const MEMINFO = `MemTotal:       24683528 kB
MemFree:        21169384 kB
MemAvailable:   23662236 kB
Buffers:          123456 kB
Cached:          2500000 kB
`;

test('meminfo is read in bytes; old kernels without MemAvailable use free + cached', () => {
  assert.deepEqual(parseMeminfo(MEMINFO), {
    totalBytes: 24683528 * 1024,
    availableBytes: 23662236 * 1024,
  });
  const old = MEMINFO.replace(/^MemAvailable.*\n/m, '');
  assert.equal(parseMeminfo(old).availableBytes, (21169384 + 2500000) * 1024);
  assert.throws(() => parseMeminfo('nothing'), /no MemTotal/);
});

test('a memory load may take what is available minus a reserve, and no more', () => {
  const info = { totalBytes: 8 * GiB, availableBytes: 4 * GiB };
  // reserve = max(10% of 8 GiB, 512 MiB) = 819.2 MiB
  assert.equal(maxMemoryLoad(info), Math.floor(4 * GiB - 0.1 * 8 * GiB));
  checkMemory(info, 3 * GiB);
  assert.throws(
    () => checkMemory(info, 3.5 * GiB),
    /not enough free memory: the load wants 3\.5 GiB/,
  );
  assert.equal(maxMemoryLoad({ totalBytes: 1 * GiB, availableBytes: 256 * MiB }), 0);
});
