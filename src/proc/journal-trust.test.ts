// The trust checks a journal read from disk must pass before anything is written: ownership and
// mode of the file and its folder, and every entry naming a setting xrunhunt really changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JournalEntry } from './journal.js';
import { readJournalFile } from './journal.js';
import type { OwnershipFacts } from './journal-trust.js';
import {
  checkJournalFileTrust,
  judgeEntry,
  judgeJournalEntries,
  judgeOwnership,
} from './journal-trust.js';

const at = '2026-01-01T00:00:00.000Z';
const entry = (path: string, original: string, kind: string): JournalEntry => ({
  path,
  original,
  kind,
  recordedAt: at,
});
const roots = { proc: ['/p'], tracefs: ['/s/kernel/tracing'] };

function tempDir(t: { after(fn: () => void): void }): string {
  const d = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-trust-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

test('ownership: only a regular file / folder of the running user that nobody else can write', () => {
  const ok: OwnershipFacts = { kind: 'file', uid: 0, mode: 0o100600, size: 10 };
  assert.equal(judgeOwnership(ok, 'file', 0), null);
  assert.match(
    judgeOwnership({ ...ok, uid: 65534 }, 'file', 0)!,
    /owned by uid 65534, not by the running user \(uid 0\)/,
  );
  assert.match(
    judgeOwnership({ ...ok, mode: 0o100666 }, 'file', 0)!,
    /writable by every user \(mode 0666\)/,
  );
  assert.match(judgeOwnership({ ...ok, mode: 0o100620 }, 'file', 0)!, /writable by its group/);
  assert.match(judgeOwnership({ ...ok, kind: 'symlink' }, 'file', 0)!, /symbolic link/);
  assert.match(judgeOwnership({ ...ok, kind: 'directory' }, 'file', 0)!, /not a regular file/);
  assert.match(judgeOwnership({ ...ok, size: 2 ** 21 }, 'file', 0)!, /larger than any journal/);
  const dir: OwnershipFacts = { kind: 'directory', uid: 1000, mode: 0o40777, size: 0 };
  assert.match(judgeOwnership(dir, 'directory', 1000)!, /writable by every user \(mode 0777\)/);
  assert.equal(judgeOwnership({ ...dir, mode: 0o40700 }, 'directory', 1000), null);
});

test('entries: an xrun_debug file under the proc root with an integer mask is trusted', () => {
  const e = entry('/p/asound/card0/pcm0p/xrun_debug', '3', 'xrun_debug');
  assert.deepEqual(judgeEntry(e, '/p/asound/card0/pcm0p/xrun_debug', roots), {
    trust: 'ok',
    path: '/p/asound/card0/pcm0p/xrun_debug',
  });
  assert.deepEqual(judgeEntry(e, null, roots), { trust: 'gone' }, 'unplugged card: dropped');
});

test('entries: any other path, a kind mismatch or a value of the wrong shape is refused', () => {
  const refused = (e: JournalEntry, real: string | null): string => {
    const v = judgeEntry(e, real, roots);
    assert.equal(v.trust, 'refused', JSON.stringify(e));
    return v.trust === 'refused' ? v.reason : '';
  };
  assert.match(
    refused(entry('/etc/shadow', 'X', 'xrun_debug'), '/etc/shadow'),
    /\/etc\/shadow is not a setting xrunhunt changes/,
  );
  // a symlink inside the root that points out of it: judged by where it really leads
  assert.match(
    refused(entry('/p/asound/card0/pcm0p/xrun_debug', '1', 'xrun_debug'), '/etc/passwd'),
    /really \/etc\/passwd/,
  );
  assert.match(
    refused(entry('/p/asound/../../etc/x', '1', 'xrun_debug'), null),
    /is not a setting/,
    'a missing path counts as gone only when it lies under a root as written',
  );
  assert.match(
    refused(
      entry('/p/asound/card0/pcm0p/xrun_debug', '1', 'value'),
      '/p/asound/card0/pcm0p/xrun_debug',
    ),
    /journaled as kind value, but xrunhunt journals it as xrun_debug/,
  );
  for (const bad of ['X', '-1', '3 ; rm', '99999999999', ''])
    assert.match(
      refused(
        entry('/p/asound/card0/pcm0p/xrun_debug', bad, 'xrun_debug'),
        '/p/asound/card0/pcm0p/xrun_debug',
      ),
      /is not an xrun_debug mask/,
    );
  assert.match(
    refused(entry('/p/asound/card0/pcm0p/info', '1', 'xrun_debug'), '/p/asound/card0/pcm0p/info'),
    /not a setting/,
  );
  assert.match(
    refused(
      entry('/s/kernel/tracing/kprobe_events', 'p:evil/x do_sys_open', 'append'),
      '/s/kernel/tracing/kprobe_events',
    ),
    /not the removal of xrunhunt's probe/,
  );
  assert.match(
    refused(
      entry('/s/kernel/tracing/instances/other', '', 'rmdir'),
      '/s/kernel/tracing/instances/other',
    ),
    /not a setting/,
  );
});

test('entries: exactly the kprobe capture’s tracefs entries are trusted', () => {
  const ev = '/s/kernel/tracing/instances/xrunhunt/events/xrunhunt/xrun';
  for (const e of [
    entry('/s/kernel/tracing/kprobe_events', '-:xrunhunt/xrun', 'append'),
    entry('/s/kernel/tracing/instances/xrunhunt', '', 'rmdir'),
    entry(`${ev}/trigger`, '!stacktrace', 'append'),
    entry(`${ev}/enable`, '0', 'value'),
  ])
    assert.equal(judgeEntry(e, e.path, roots).trust, 'ok', e.path);
});

test('judgeJournalEntries resolves symlinks on disk: a link out of the fake tree is refused', (t) => {
  const d = tempDir(t);
  const pcm = join(d, 'proc', 'asound', 'card0', 'pcm0p');
  fs.mkdirSync(pcm, { recursive: true });
  fs.writeFileSync(join(pcm, 'xrun_debug'), '0\n');
  const victim = join(d, 'victim');
  fs.writeFileSync(victim, 'precious');
  const pcm1 = join(d, 'proc', 'asound', 'card1', 'pcm0p');
  fs.mkdirSync(pcm1, { recursive: true });
  fs.symlinkSync(victim, join(pcm1, 'xrun_debug'));
  const r = { procRoot: join(d, 'proc'), sysRoot: join(d, 'sys') };
  const good = judgeJournalEntries([entry(join(pcm, 'xrun_debug'), '1', 'xrun_debug')], r);
  assert.equal(good.trusted, true);
  const bad = judgeJournalEntries(
    [
      entry(join(pcm, 'xrun_debug'), '1', 'xrun_debug'),
      entry(join(pcm1, 'xrun_debug'), '1', 'xrun_debug'),
    ],
    r,
  );
  assert.equal(bad.trusted, false);
  assert.match(bad.trusted ? '' : bad.reasons.join('\n'), /really .*victim/);
});

test('a journal file that is a symlink, writable by others, or in a 0777 folder is refused', (t) => {
  const d = tempDir(t);
  const uid = process.geteuid!();
  const dir = join(d, 'j');
  fs.mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, 'manual.json');
  fs.writeFileSync(file, '{}', { mode: 0o600 });
  assert.equal(checkJournalFileTrust(file, uid), null);
  fs.chmodSync(file, 0o666);
  assert.match(checkJournalFileTrust(file, uid)!, /writable by every user/);
  assert.throws(
    () => readJournalFile(file),
    /refusing the settings journal .*manual\.json: it is writable by every user.*/,
  );
  fs.chmodSync(file, 0o600);
  fs.chmodSync(dir, 0o777);
  assert.match(checkJournalFileTrust(file, uid)!, /its folder .*\/j: it is writable by every user/);
  fs.chmodSync(dir, 0o700);
  const link = join(dir, 'session-1.json');
  fs.symlinkSync(file, link);
  assert.match(checkJournalFileTrust(link, uid)!, /symbolic link/);
  assert.match(checkJournalFileTrust(file, uid + 1)!, /owned by uid/);
});

test('entries: exactly the flight recorder’s tracefs entries are trusted, nothing beside them', () => {
  const inst = '/s/kernel/tracing/instances/xrunhunt-recorder';
  for (const e of [
    entry('/s/kernel/tracing/kprobe_events', '-:xrunhunt_rec/xrun', 'append'),
    entry(inst, '', 'rmdir'),
    entry(`${inst}/events/sched/sched_switch/enable`, '0', 'value'),
    entry(`${inst}/events/xrunhunt_rec/xrun/enable`, '0', 'value'),
    entry(`${inst}/events/xrunhunt_rec/xrun/trigger`, '!stacktrace', 'append'),
    entry(`${inst}/events/irq/irq_handler_entry/trigger`, '!stacktrace', 'append'),
  ])
    assert.equal(judgeEntry(e, e.path, roots).trust, 'ok', e.path);
  for (const e of [
    entry(`${inst}/events/sched/sched_switch/enable`, '1', 'value'),
    entry(`${inst}/events/sched/sched_switch/trigger`, 'traceoff', 'append'),
    entry(`${inst}/events/block/block_rq_issue/enable`, '0', 'value'),
    entry(`${inst}/buffer_size_kb`, '7', 'value'),
    entry('/s/kernel/tracing/kprobe_events', '-:xrunhunt_rec/other', 'append'),
    entry('/s/kernel/tracing/events/sched/sched_switch/enable', '0', 'value'),
  ])
    assert.equal(judgeEntry(e, e.path, roots).trust, 'refused', e.path);
});
