// watch --log-file: the log is a separate stream of JSON records; the screen stays human.
// /proc/asound is a fake tree (test/helpers/fake-proc.ts): this machine has no sound card.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { createFakeSystem, dummyCard } from '../helpers/fake-proc.js';

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-watch-log-'));
const fake = (() => {
  const card = dummyCard({}, 0);
  card.pcms[0]!.subs = [
    {
      status: [
        'state: RUNNING',
        'owner_pid   : 4242',
        'trigger_time: 1234.567890123',
        'tstamp      : 1236.567890123',
        'delay       : 256',
        'avail       : 256',
        'avail_max   : 384',
        '-----',
        'hw_ptr      : 96000',
        'appl_ptr    : 96256',
        '',
      ].join('\n'),
    },
  ];
  return createFakeSystem({
    cards: [card],
    proc: { '4242/comm': 'pipe\u001b]0;evil\u0007wire\n', 'sys/kernel/osrelease': '6.1.192\n' },
  });
})();
after(() => {
  fake.cleanup();
  rmSync(work, { recursive: true, force: true });
});

test('watch --log-file: JSON records with time and level in the file, human text on the screen', async () => {
  const logFile = join(work, 'watch.log');
  const r = await runCli(
    [
      'watch',
      '--proc-root',
      fake.procRoot,
      '--duration',
      '1500ms',
      '--out',
      join(work, 'out2'),
      '--log-file',
      logFile,
      '--log-level',
      'debug',
    ],
    { env: { XDG_STATE_HOME: join(fake.base, 'state') }, timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /^\{/m, 'the screen report is not JSON');
  const records = readFileSync(logFile, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const rec of records) {
    assert.match(String(rec['time']), /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    assert.ok(typeof rec['level'] === 'string');
    assert.equal(rec['cmd'], 'watch');
  }
  const start = records.find((x) => x['event'] === 'watch-start');
  assert.ok(start, JSON.stringify(records));
  assert.equal(start['level'], 'info');
  assert.ok(records.some((x) => x['event'] === 'watch-report' && x['msg'] === 'watch ended'));
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(readFileSync(logFile, 'utf8'), /[\u0000-\u0009\u000b-\u001f]/);
});
