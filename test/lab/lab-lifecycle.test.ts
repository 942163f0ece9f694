// The lab's contract with its caller, on the real lab kernel: the inner exit code and both
// output streams come through, results come back, and a hung guest is killed after --timeout
// with nothing left running and no temp files left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSkip } from '../helpers/lab.js';

test(
  'exit code, stdout and stderr of the inner command come through; results come back',
  { skip: labSkip(), timeout: 180_000 },
  async () => {
    const base = mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-'));
    const out = join(base, 'results');
    try {
      const r = await execInLab(
        'echo "on stdout $(cat /proc/asound/card0/id)"; echo "on stderr" >&2; echo kept > file.txt; exit 3',
        { labOptions: ['--out', out, '--scratch', '0'] },
      );
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stdout, /^on stdout Dummy$/m);
      assert.match(r.stderr, /^on stderr$/m);
      assert.match(r.stderr, /lab: (TCG|KVM)/, 'the accelerator is reported');
      assert.equal(readFileSync(join(out, 'file.txt'), 'utf8'), 'kept\n');
      const meta = JSON.parse(readFileSync(join(out, 'lab-run.json'), 'utf8')) as {
        exitCode: number;
        bootMs: number;
      };
      assert.equal(meta.exitCode, 3);
      assert.ok(meta.bootMs > 0);
      assert.match(readFileSync(join(out, 'dmesg.txt'), 'utf8'), /Linux version 6\./);
      assert.ok(!existsSync(join(out, '.lab')), 'control files are not left in the results');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  },
);

test(
  'a hung guest is killed after --timeout: exit 1, a clear message, nothing left behind',
  { skip: labSkip(), timeout: 180_000 },
  async () => {
    const base = mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-'));
    try {
      const started = Date.now();
      const r = await execInLab('sleep 600', {
        labOptions: ['--timeout', '20s', '--out', join(base, 'r')],
      });
      const took = Date.now() - started;
      assert.equal(r.code, 1);
      assert.match(r.stderr, /did not finish within 20s and was killed/);
      // 20 s timeout + up to 3 s SIGTERM grace + CLI start; a generous 30 s margin for a loaded host.
      assert.ok(took < 55_000, `took ${took} ms`);
      const run = JSON.parse(readFileSync(join(base, 'r', 'lab-run.json'), 'utf8')) as {
        qemuPid: number;
        workDir: string;
        timedOut: boolean;
      };
      assert.equal(run.timedOut, true);
      assert.ok(run.qemuPid > 0);
      let alive = '';
      try {
        alive = readFileSync(`/proc/${run.qemuPid}/cmdline`, 'utf8');
      } catch {
        alive = '';
      }
      assert.ok(!alive.startsWith('qemu-system'), 'no QEMU left running');
      assert.ok(!existsSync(run.workDir), 'no temp folder (scratch image) left');
      assert.ok(
        existsSync(join(base, 'r', 'lab-console.log')),
        'partial results kept for diagnosis',
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  },
);
