// pgArrayLiteral against a real PostgreSQL: every element the ingest sends — quotes,
// backslashes, braces, commas, blanks, the word NULL, non-ASCII, numbers of every kind —
// comes back from unnest() exactly as it went in, and null stays NULL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { pgArrayLiteral, withArrayLiterals } from '../../src/store/pg-array-literal.js';
import { postgresSkip, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

const skip = postgresSkip();
let server: TestPostgres | undefined;
let client: pg.Client | undefined;

before(async () => {
  if (skip) return;
  server = await startTestPostgres();
  client = new pg.Client({ connectionString: server.createDatabase('arrays') });
  await client.connect();
});
after(async () => {
  await client?.end();
  server?.destroy();
});

const roundTrip = async (type: string, values: unknown[]): Promise<unknown[]> =>
  (
    await client!.query<{ v: unknown }>({
      text: `SELECT v FROM unnest($1::${type}[]) WITH ORDINALITY AS t(v, i) ORDER BY i`,
      values: [pgArrayLiteral(values as never)],
    })
  ).rows.map((r) => r.v);

test('pg array literal: hostile text round-trips through unnest', { skip }, async () => {
  const text = [
    'plain',
    '',
    ' lead and trail ',
    'a,b',
    '{braces}',
    'say "hi"',
    'back\\slash',
    '\\"',
    'NULL',
    null,
    'null',
    'tab\tnew\nline',
    'ünï 😀',
    'ext4_writepages+0x1a/0x2c [ext4]',
  ];
  assert.deepEqual(await roundTrip('text', text), text);
  assert.deepEqual(await roundTrip('text', []), []);
});

test(
  'pg array literal: NUL (which PostgreSQL text cannot hold) arrives as U+FFFD',
  { skip },
  async () => {
    // Before: "invalid byte sequence for encoding UTF8: 0x00", and the ingest batch rolled back.
    assert.deepEqual(await roundTrip('text', ['a\u0000b', '\u0000', 'ok']), [
      'a\ufffdb',
      '\ufffd',
      'ok',
    ]);
    const scalar = await client!.query<{ v: string }>({
      text: 'SELECT $1::text AS v',
      values: withArrayLiterals(['x\u0000y']) as string[],
    });
    assert.equal(scalar.rows[0]!.v, 'x\ufffdy');
  },
);

test('pg array literal: numbers and booleans keep their values', { skip }, async () => {
  assert.deepEqual(await roundTrip('float8', [0, -1.5, 1e-9, 12345.678, null]), [
    0,
    -1.5,
    1e-9,
    12345.678,
    null,
  ]);
  // bigint comes back as text from node-postgres.
  assert.deepEqual(await roundTrip('bigint', [1, -2, 1764800000000, null]), [
    '1',
    '-2',
    '1764800000000',
    null,
  ]);
  assert.deepEqual(await roundTrip('int', [0, 2147483647]), [0, 2147483647]);
  assert.deepEqual(await roundTrip('boolean', [true, false, null]), [true, false, null]);
});

test('pg array literal: anything else is refused, not sent as text', () => {
  assert.throws(() => pgArrayLiteral([{} as never]), /unsupported element object/);
});
