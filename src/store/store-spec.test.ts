import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePostgresUrl, redactUrl, resolveStoreSpec } from './store-spec.js';

test('a bad PostgreSQL URL is a usage error that says what was expected and hides the password', () => {
  const cases: [string, RegExp][] = [
    ['postgres://u:s3cret@/fleet', /not a URL/],
    ['postgres:///fleet', /no host/],
    ['postgres://u:s3cret@db.example:5432', /no database name/],
    ['postgres://u:s3cret@db.example:99999/fleet', /not a URL|out of range/],
    ['mysql://u:s3cret@db/fleet', /scheme is "mysql"/],
  ];
  for (const [url, why] of cases) {
    assert.throws(
      () => parsePostgresUrl(url, '--store'),
      (err: Error & { hint?: string }) =>
        why.test(err.message) &&
        !err.message.includes('s3cret') &&
        /postgres:\/\/USER/.test(err.hint ?? ''),
      url,
    );
  }
  assert.equal(redactUrl('postgres://u:s3cret@db:5432/fleet'), 'postgres://u:***@db:5432/fleet');
  assert.equal(redactUrl('postgres://u@db/fleet'), 'postgres://u@db/fleet');
});

test('--store beats $XRUNHUNT_STORE beats --db; a plain path is an SQLite file', () => {
  const env = { XRUNHUNT_STORE: 'postgres://x:pw@h/db' };
  const pg = resolveStoreSpec({ store: undefined, env, sqlitePath: () => '/d.db' });
  assert.deepEqual(pg, {
    kind: 'postgres',
    url: 'postgres://x:pw@h/db',
    label: 'postgres://x:***@h/db',
  });
  assert.deepEqual(resolveStoreSpec({ store: '/f.db', env, sqlitePath: () => '/d.db' }), {
    kind: 'sqlite',
    path: '/f.db',
  });
  assert.deepEqual(resolveStoreSpec({ store: undefined, env: {}, sqlitePath: () => '/d.db' }), {
    kind: 'sqlite',
    path: '/d.db',
  });
  assert.throws(
    () =>
      resolveStoreSpec({
        store: undefined,
        env: { XRUNHUNT_STORE: 'postgres://h' },
        sqlitePath: () => '',
      }),
    /invalid \$XRUNHUNT_STORE/,
  );
});
