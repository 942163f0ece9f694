// End-to-end: the real CLI on real fixture logs, stdin, gzip and bad inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cliCommand, repoRoot, runCli } from '../helpers/cli.js';

const fx = (name: string): string => join(repoRoot, 'test/fixtures/kernel-logs', name);
const LAB = 'lab-6.1-x86_64-shapes-dmesg.txt';
const tmp = mkdtempSync(join(tmpdir(), 'xrunhunt-analyze-e2e-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

interface Json {
  events: {
    kind: string;
    pcm: string | null;
    line: number;
    time?: number;
    source?: string;
    offender: { class: string; function: string | null; module: string | null; signature: string };
    frames: unknown[];
  }[];
  offenders: {
    function: string;
    module: string | null;
    signature: string;
    count: number;
    share: number;
    signatures: number;
    lines: number[];
  }[];
  summary: { events: number; byClass: Record<string, number> };
  warnings: string[];
}

test('text report: conclusion first, exit 2 when events are found', async () => {
  const r = await runCli(['analyze', fx(LAB)]);
  assert.equal(r.code, 2, r.stderr);
  const first = r.stdout.split('\n')[0]!;
  assert.match(first, /^8 events \(7 XRUNs, 1 hw-pointer error\)\./);
  assert.match(r.stdout, /test_unlock \[test_lockup\]/);
  assert.match(r.stdout, /signature: _raw_spin_unlock_irq \| __filemap_add_folio/);
  assert.match(r.stdout, />> task\s+__filemap_add_folio\+0x225\/0x410/);
  assert.equal(r.stderr, '');
});

test('--json shape and content', async () => {
  const r = await runCli(['analyze', fx(LAB), '--json']);
  assert.equal(r.code, 2, r.stderr);
  const j = JSON.parse(r.stdout) as Json;
  assert.equal(j.events.length, 8);
  const e = j.events[0]!;
  assert.deepEqual(
    { kind: e.kind, pcm: e.pcm, line: e.line, cls: e.offender.class, fn: e.offender.function },
    { kind: 'xrun', pcm: 'pcmC0D0p:0', line: 3, cls: 'kernel', fn: '__filemap_add_folio' },
  );
  assert.equal(typeof e.time, 'number');
  assert.equal(e.source, undefined);
  assert.ok(e.frames.length > 5);
  assert.deepEqual(j.offenders[0], {
    function: 'test_unlock',
    module: 'test_lockup',
    signature: j.offenders[0]!.signature,
    count: 2,
    share: 2 / 8,
    signatures: 2,
    lines: [240, 286],
  });
  // The eighth dump is aplay's own write ioctl (__snd_pcm_lib_xfer): its stack names the
  // detector, so it is counted as detector-only, never ranked.
  assert.deepEqual(j.summary.byClass, {
    kernel: 4,
    idle: 1,
    user: 2,
    none: 0,
    'detector-only': 1,
  });
  assert.deepEqual(j.warnings, []);
});

test('--format markdown', async () => {
  const r = await runCli(['analyze', fx(LAB), '--format', 'markdown', '--top', '1']);
  assert.equal(r.code, 2);
  assert.match(r.stdout, /^## xrunhunt analysis/);
  assert.match(r.stdout, /\| 1 \| 2 \| 25% \| `test_unlock \[test_lockup\]` \|/);
  assert.doesNotMatch(r.stdout, /\| 2 \| 1 \|/);
});

test('stdin with - and without a file; exit 0 when nothing is found', async () => {
  const text = readFileSync(fx('001-i386-2.6.8-ice1712-xrun-no-timestamp.txt'));
  const a = await runCli(['analyze', '-', '--json'], { input: text });
  assert.equal(a.code, 2);
  assert.equal((JSON.parse(a.stdout) as Json).events.length, 10);
  const b = await runCli(['analyze', '--json'], { input: text });
  assert.equal(b.code, 2);
  const c = await runCli([
    'analyze',
    fx('010-x86_64-5.11-syzbot-lockdep-recursive-in-snd_pcm_period_elapsed-IRQ-inline-frames.txt'),
  ]);
  assert.equal(c.code, 0);
  assert.match(c.stdout, /^No XRUN/);
});

test('gzip by magic bytes, several inputs get a source', async () => {
  const gz = join(tmp, 'kern.log.1');
  writeFileSync(
    gz,
    gzipSync(readFileSync(fx('026-i386-2.6.8-syslog-unexpected-hw-pointer-1-with-trace.txt'))),
  );
  const r = await runCli([
    'analyze',
    gz,
    fx('027-2.6.1-syslog-single-line-unexpected-hw-pointer-no-trace.txt'),
    '--json',
  ]);
  assert.equal(r.code, 2, r.stderr);
  const j = JSON.parse(r.stdout) as Json;
  assert.deepEqual(
    j.events.map((e) => [e.source, e.line, e.kind]),
    [
      ['kern.log.1', 1, 'hw_ptr_error'],
      ['kern.log.1', 12, 'hw_ptr_error'],
      ['027-2.6.1-syslog-single-line-unexpected-hw-pointer-no-trace.txt', 1, 'hw_ptr_error'],
    ],
  );
  // Truncated gzip: what decompresses is analysed, with a warning.
  const whole = gzipSync(readFileSync(fx(LAB)));
  const cut = join(tmp, 'cut.gz');
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
  const t = await runCli(['analyze', cut, '--json']);
  assert.ok(t.code === 2 || t.code === 0, t.stderr);
  assert.ok(
    (JSON.parse(t.stdout) as Json).warnings.some((w) =>
      /gzip data is truncated or corrupt/.test(w),
    ),
  );
});

test('bad inputs: missing file, directory, empty, binary, invalid UTF-8, 10 MB line', async () => {
  const missing = await runCli(['analyze', join(tmp, 'nope.log')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /error: .*nope\.log: no such file/);
  assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');

  const dir = await runCli(['analyze', tmp]);
  assert.equal(dir.code, 1);
  assert.match(dir.stderr, /is a directory, expected a kernel log file/);

  const empty = join(tmp, 'empty.log');
  writeFileSync(empty, '');
  const e = await runCli(['analyze', empty, '--json']);
  assert.equal(e.code, 0);
  assert.ok((JSON.parse(e.stdout) as Json).warnings.some((w) => w.includes('is empty')));

  const bin = join(tmp, 'bin.log');
  const junk = Buffer.alloc(300000);
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919 + (i >> 3)) & 0xff;
  writeFileSync(bin, junk);
  const b = await runCli(['analyze', bin, '--json']);
  assert.ok(b.code === 0 || b.code === 2, b.stderr);
  const bj = JSON.parse(b.stdout) as Json;
  assert.ok(bj.warnings.some((w) => w.includes('binary data')));

  const utf = join(tmp, 'latin1.log');
  writeFileSync(
    utf,
    Buffer.concat([Buffer.from('Jan  4 16:20:11 h\xe9 kernel: XRUN: pcmC0D0p\n', 'latin1')]),
  );
  const u = await runCli(['analyze', utf, '--json']);
  assert.equal(u.code, 2);
  const uj = JSON.parse(u.stdout) as Json;
  assert.equal(uj.events.length, 1);
  assert.ok(uj.warnings.some((w) => w.includes('not valid UTF-8')));

  const long = join(tmp, 'long.log');
  writeFileSync(long, `${'A'.repeat(10 * 1024 * 1024)}\nXRUN: pcmC0D0p\n`);
  const l = await runCli(['analyze', long, '--json']);
  assert.equal(l.code, 2, l.stderr);
  const lj = JSON.parse(l.stdout) as Json;
  assert.equal(lj.events[0]!.line, 2);
  assert.ok(lj.warnings.some((w) => w.includes('truncated')));
});

test('usage errors exit 1 with a clear message', async () => {
  const f = await runCli(['analyze', fx(LAB), '--format', 'pdf']);
  assert.equal(f.code, 1);
  assert.match(f.stderr, /invalid --format "pdf": expected one of text, markdown, md, json/);
  const t = await runCli(['analyze', fx(LAB), '--top', 'many']);
  assert.equal(t.code, 1);
  assert.match(t.stderr, /--top expects a whole number/);
});

test('bundles as input: events re-classified with the current rules; newer formats refused clearly', async () => {
  const b = await runCli([
    'analyze',
    join(repoRoot, 'test/fixtures/bundles/session-lab-test-lockup.json.gz'),
    '--json',
  ]);
  assert.equal(b.code, 2, b.stderr);
  const j = JSON.parse(b.stdout) as Json;
  assert.ok(j.events.length > 0);
  assert.equal(j.offenders[0]!.function, 'test_unlock');
  assert.equal(j.offenders[0]!.module, 'test_lockup');
  const f = await runCli([
    'analyze',
    join(repoRoot, 'test/fixtures/bundles/future-version-7.json'),
  ]);
  assert.equal(f.code, 1);
  assert.match(f.stderr, /newer xrunhunt \(formatVersion 7\)/);
  assert.doesNotMatch(f.stderr, /cannot read/);
});

const noStack = (stderr: string): void => assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');

test('named devices and FIFOs are refused before anything is read; stdin from /dev/zero stops', async () => {
  const zero = await runCli(['analyze', '/dev/zero'], { timeoutMs: 20_000 });
  assert.equal(zero.code, 1, zero.stderr);
  assert.match(
    zero.stderr,
    /\/dev\/zero: expected a kernel log \(a regular file\), found a character device/,
  );
  assert.match(zero.stderr, /head -c 64M/);
  noStack(zero.stderr);

  // /proc/kmsg looks like a regular file but blocks until the kernel prints.
  const kmsg = await runCli(['analyze', '/proc/kmsg'], { timeoutMs: 20_000 });
  assert.equal(kmsg.code, 1, kmsg.stderr);
  assert.match(kmsg.stderr, /\/proc\/kmsg: .*found a file of the kernel's proc file system/);
  assert.match(kmsg.stderr, /dmesg \| xrunhunt analyze -/);

  const fifo = join(tmp, 'fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  // No writer: opening it would block forever.
  const f = await runCli(['analyze', fifo, '--json'], { timeoutMs: 20_000 });
  assert.equal(f.code, 1, f.stderr);
  assert.match(f.stderr, /found a named pipe \(FIFO\); nothing was read from it/);
  assert.equal(f.stdout, '');

  // Standard input stays allowed; an endless NUL stream is stopped with a warning.
  const [cmd, ...pre] = cliCommand();
  const fd = openSync('/dev/zero', 'r');
  try {
    const r = spawnSync(cmd!, [...pre, 'analyze', '-', '--json'], {
      cwd: repoRoot,
      stdio: [fd, 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as Json;
    assert.equal(j.events.length, 0);
    assert.ok(
      j.warnings.some((w) => /standard input: stopped reading after .* NUL bytes/.test(w)),
      JSON.stringify(j.warnings),
    );
  } finally {
    closeSync(fd);
  }
});

test('damaged bundles are refused with the reason, like aggregate refuses them', async () => {
  const good = readFileSync(join(repoRoot, 'test/fixtures/bundles/session-ext4-writeback.json'));
  const cases: [string, Buffer, RegExp][] = [
    ['bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), good]), /byte-order mark/],
    ['cut.json', good.subarray(0, Math.floor(good.length / 2)), /not valid JSON/],
    ['trailing.json', Buffer.concat([good, Buffer.from('\n}garbage\n')]), /not valid JSON/],
    [
      'bom.json.gz',
      gzipSync(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), good])),
      /byte-order mark/,
    ],
    ['trailing.json.gz', gzipSync(Buffer.concat([good, Buffer.from('}}')])), /not valid JSON/],
    [
      'cut.json.gz',
      (() => {
        const z = gzipSync(good);
        return z.subarray(0, Math.floor(z.length * 0.7));
      })(),
      /the gzip data is truncated/,
    ],
  ];
  for (const [name, bytes, why] of cases) {
    const file = join(tmp, name);
    writeFileSync(file, bytes);
    const r = await runCli(['analyze', file, '--json']);
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`bundle .*${name.replace(/\./g, '\\.')}`), name);
    assert.match(r.stderr, why, name);
    assert.doesNotMatch(r.stderr, /No XRUN/);
    noStack(r.stderr);
  }
  // The undamaged bundle still reads.
  const ok = await runCli([
    'analyze',
    join(repoRoot, 'test/fixtures/bundles/session-ext4-writeback.json'),
  ]);
  assert.equal(ok.code, 2, ok.stderr);
});

const canDropPrivileges =
  process.getuid?.() === 0 &&
  spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'true']).status ===
    0;

test(
  'an unreadable file in a readable folder is a permission error, not a stack trace',
  { skip: canDropPrivileges ? false : 'needs root and setpriv to run the CLI as nobody' },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-analyze-eacces-'));
    try {
      chmodSync(dir, 0o755);
      const file = join(dir, 'kern.log');
      writeFileSync(file, readFileSync(fx(LAB)));
      chmodSync(file, 0o000);
      const [cmd, ...pre] = cliCommand();
      const r = spawnSync(
        'setpriv',
        [
          '--reuid=nobody',
          '--regid=nogroup',
          '--clear-groups',
          'env',
          'HOME=/nonexistent',
          cmd!,
          ...pre,
          'analyze',
          file,
        ],
        { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 },
      );
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /cannot read .*kern\.log: permission denied/);
      assert.match(r.stderr, /sudo cat FILE \| xrunhunt analyze -/);
      noStack(r.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('a log rotated inside a dump, named in either order, keeps the frames of the cut event', async () => {
  const text = readFileSync(fx(LAB), 'utf8');
  const lines = text.split('\n');
  const whole = JSON.parse((await runCli(['analyze', fx(LAB), '--json'])).stdout) as Json;
  // Cut in the middle of the second event's stack.
  const second = whole.events[1]!;
  assert.ok(second.frames.length > 8);
  const cut = second.line + 8;
  const dir = mkdtempSync(join(tmp, 'rotated-'));
  writeFileSync(join(dir, 'kern.log.1'), lines.slice(0, cut).join('\n') + '\n');
  writeFileSync(join(dir, 'kern.log'), lines.slice(cut).join('\n'));
  const r = await runCli(['analyze', join(dir, 'kern.log'), join(dir, 'kern.log.1'), '--json']);
  assert.equal(r.code, 2, r.stderr);
  const j = JSON.parse(r.stdout) as Json;
  assert.deepEqual(
    j.events.map((e) => [e.source, e.line, e.frames.length, e.offender.function]),
    whole.events.map((e) =>
      e.line <= cut
        ? ['kern.log.1', e.line, e.frames.length, e.offender.function]
        : ['kern.log', e.line - cut, e.frames.length, e.offender.function],
    ),
  );
  assert.deepEqual(
    j.offenders.map((o) => [o.function, o.count]),
    whole.offenders.map((o) => [o.function, o.count]),
  );
});

test('a CR-only log reads like its LF original', async () => {
  const file = join(tmp, 'cr-only.log');
  writeFileSync(file, readFileSync(fx(LAB), 'utf8').replace(/\n/g, '\r'));
  const r = await runCli(['analyze', file, '--json']);
  assert.equal(r.code, 2, r.stderr);
  const j = JSON.parse(r.stdout) as Json;
  const whole = JSON.parse((await runCli(['analyze', fx(LAB), '--json'])).stdout) as Json;
  assert.deepEqual(j.events, whole.events);
});

test('--html into /proc says what is wrong before analysing; a folder that does not exist too', async () => {
  const p = await runCli(['analyze', fx(LAB), '--html', '/proc/version']);
  assert.equal(p.code, 1, p.stderr);
  assert.match(
    p.stderr,
    /cannot write the HTML report to \/proc\/version: \/proc is on the kernel's proc file system/,
  );
  assert.doesNotMatch(p.stderr, /does not exist/);
  assert.equal(p.stdout, '', 'refused before any report was printed');
  const m = await runCli(['analyze', fx(LAB), '--html', join(tmp, 'no-such-dir', 'r.html')]);
  assert.equal(m.code, 1);
  assert.match(m.stderr, /its folder .*no-such-dir does not exist/);
  noStack(m.stderr);
});

test('many events: --json streams a valid document, --verbose lists every event', async () => {
  const n = 3000;
  let log = '';
  const dump = readFileSync(fx('lab-6.1-x86_64-io-load-ext4-writeback-kernel.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('['))
    .join('\n');
  for (let i = 0; i < n; i++) log += `${dump}\n`;
  const file = join(tmp, 'many.log');
  writeFileSync(file, log);
  const j = await runCli(['analyze', file, '--json'], { timeoutMs: 120_000 });
  assert.equal(j.code, 2, j.stderr);
  const doc = JSON.parse(j.stdout) as Json;
  assert.equal(doc.events.length, n);
  assert.equal(doc.summary.events, n);
  assert.ok(
    doc.events.every((e) => e.frames.length > 10),
    'every event keeps its frames',
  );
  assert.equal(doc.offenders[0]!.function, 'ext4_finish_bio');
  assert.equal(doc.offenders[0]!.count, n);
  const v = await runCli(['analyze', file, '--verbose'], { timeoutMs: 120_000 });
  assert.equal(v.code, 2, v.stderr);
  assert.equal(v.stdout.match(/^ +>> /gm)?.length, n, 'one offender mark per event');
  assert.doesNotMatch(v.stdout, /more events/);
  const t = await runCli(['analyze', file]);
  assert.equal(t.stdout.match(/^ +>> /gm)?.length, 20);
  assert.match(t.stdout, new RegExp(`… ${n - 20} more events \\(--verbose shows all\\)`));
});

test('a reader that goes away early (| head) ends analyze quietly, in every format', async () => {
  const dump = readFileSync(fx('lab-6.1-x86_64-io-load-ext4-writeback-kernel.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('['))
    .join('\n');
  const file = join(tmp, 'head.log');
  writeFileSync(file, `${dump}\n`.repeat(3000));
  const cli = cliCommand()
    .map((a) => `'${a}'`)
    .join(' ');
  for (const extra of ['--json', '--verbose', '--format markdown --verbose']) {
    const r = spawnSync(
      'bash',
      [
        '-c',
        `${cli} analyze '${file}' ${extra} | head -c 200 >/dev/null; echo "rc=\${PIPESTATUS[0]}"`,
      ],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
    );
    assert.match(r.stdout, /rc=2/, `${extra}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /EPIPE|Unhandled|\n\s+at /, extra);
  }
});

test('JSON that is not one bundle: a document is read as text and said so, an array of bundles is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-notbundle-'));
  try {
    const f = join(dir, 'config.json');
    writeFileSync(f, '{"a": 1, "b": [2, 3]}\n');
    const r = await runCli(['analyze', f]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /config\.json is one JSON document but not an xrunhunt bundle/);
    for (const doc of ['[]', 'null', '"text"', '[["a"]]']) {
      const g = join(dir, 'doc.txt');
      writeFileSync(g, doc + '\n');
      const d = await runCli(['analyze', g]);
      assert.equal(d.code, 0, d.stderr);
      assert.match(d.stderr, /is one JSON document but not an xrunhunt bundle/, doc);
    }
    const arr = join(dir, 'bundles.txt');
    writeFileSync(arr, '[{"formatVersion": 1}, {"formatVersion": 1}]\n');
    const a = await runCli(['analyze', arr]);
    assert.equal(a.code, 1);
    assert.match(
      a.stderr,
      /is a JSON array, not one bundle[\s\S]*give each bundle as its own file/,
    );
    // journalctl -o json (one object per line) is a log, with no such warning.
    const nd = join(dir, 'journal.ndjson');
    writeFileSync(nd, '{"MESSAGE":"a"}\n{"MESSAGE":"b"}\n');
    const j = await runCli(['analyze', nd]);
    assert.doesNotMatch(j.stderr, /not an xrunhunt bundle|named like a bundle/);
    // A dmesg line opens with [ and a number: a log, not JSON.
    const dm = join(dir, 'dmesg.txt');
    writeFileSync(dm, '[    0.000000] Linux version 6.1.0\n');
    assert.doesNotMatch((await runCli(['analyze', dm])).stderr, /JSON/);
    // Garbage in a file named like a bundle is said to be no bundle.
    const named = join(dir, 'bundle.json.gz');
    writeFileSync(named, gzipSync('not a bundle at all\n'));
    assert.match(
      (await runCli(['analyze', named])).stderr,
      /named like a bundle but holds no xrunhunt bundle/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
