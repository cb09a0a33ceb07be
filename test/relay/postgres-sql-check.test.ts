// The configured-SQL check against the server's own reading: each statement hides a probe call where lexers
// disagree about what is a literal. Whenever PostgreSQL runs the probe (its result has a `hit` column), the check
// must refuse the statement; whenever the server reads the probe as part of a literal or comment, with
// standard_conforming_strings on and off, the check must accept it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { readOnlySqlProblem } from '../../src/relay/sources/postgres/check-read-only-sql.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';

const PROBE = 'pg_backend_pid() AS hit';
const TAG = `$${'T'.repeat(100)}$`;

/** [what, statement, whether the server runs the probe]. */
const CASES: [string, string, boolean][] = [
  ['an escape string continued on the next line', `SELECT E'x'\n'\\' ' AS note, ${PROBE} --'`, true],
  ['a continuation after a comment line', `SELECT E'x' -- it's\n-- more\n'\\' ' AS note, ${PROBE} --'`, true],
  ['a continuation after a carriage return', `SELECT E'x'\r'\\' ' AS note, ${PROBE} --'`, true],
  ['a continuation after a form feed and tab', `SELECT E'x' \f\n\t'\\' ' AS note, ${PROBE} --'`, true],
  ['a standard string continued', `SELECT 'x'\n'\\' AS note, ${PROBE} --'`, true],
  ['a probe in a comment between continued segments', `SELECT 'a'\n-- , ${PROBE}\n'b' AS note`, false],
  ['a probe in an escape string', `SELECT E'\\' AS note, ${PROBE} --' AS note`, false],
  ['a national string with a backslash', `SELECT N'\\' AS note, ${PROBE} --'`, true],
  ['a long dollar tag closed at once', `SELECT ${TAG}'${TAG} AS note, ${PROBE} --'`, true],
  ['a probe in a long dollar quote', `SELECT ${TAG} ${PROBE} $T$ ${TAG} AS note`, false],
  ['a near-miss dollar tag', `SELECT $a$ $ab$ ${PROBE} $a$ AS note`, false],
  ['a dollar tag closed after a name character', `SELECT $a$ x$a$ AS note, ${PROBE}`, true],
  ['a dollar tag inside a name', `SELECT 1 AS a$b$, ${PROBE}, $b$x$b$ AS c`, true],
  ['a probe in a nested comment', `SELECT 1 AS note /* a /* b */ , ${PROBE} */`, false],
  ['a probe after a closed comment', `SELECT 1 AS note /* a */ , ${PROBE} /* b */`, true],
  ['a line comment ended by a carriage return', `SELECT 1 AS note --\r, ${PROBE}`, true],
  ['an operator ending before a line comment', `SELECT 2 *-- , ${PROBE}\n 3 AS note`, false],
  ['an operator ending before a block comment', `SELECT 2 */* c */ 3 AS note, ${PROBE}`, true],
  ['a quoted name with a doubled quote', `SELECT 1 AS "a""b', ${PROBE} --'"`, false],
  ['a name starting with a no-break space', `SELECT \u00a0E'\\' AS note, ${PROBE} --'`, true],
  ['a backslash ending a plain literal', `SELECT 'a\\' AS x, ' AS note, ${PROBE} --'`, true],
];

describe('the configured-SQL check reads literals as PostgreSQL does', () => {
  let db: TestDatabase;
  let client: pg.Client;
  before(async () => {
    db = await openTestDatabase();
    // Makes `<no-break space>E '...'` a valid typed literal, so the server shows how it splits that text.
    await db.query('CREATE DOMAIN "\u00a0e" AS text');
    client = new pg.Client({ connectionString: db.url });
    client.on('notice', () => {});
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.close();
  });

  /** Whether the server ran the probe, with standard_conforming_strings as given; throws on any other error. */
  async function serverRunsProbe(sql: string, standardConformingStrings: boolean): Promise<boolean> {
    await client.query('BEGIN READ ONLY');
    try {
      await client.query(
        `SET LOCAL standard_conforming_strings = ${standardConformingStrings ? 'on' : 'off'}`,
      );
      const result = await client.query(sql);
      return result.fields.some((field) => field.name === 'hit');
    } finally {
      await client.query('ROLLBACK');
    }
  }

  for (const [what, sql, runs] of CASES) {
    it(`${runs ? 'refuses' : 'accepts'} ${what}`, async () => {
      const runsOn = await serverRunsProbe(sql, true);
      const runsOff = await serverRunsProbe(sql, false);
      assert.equal(runsOn || runsOff, runs, `the server ${runs ? 'did not run' : 'ran'} the probe`);
      const problem = readOnlySqlProblem(sql);
      if (runs) assert.match(problem ?? 'accepted', /pg_backend_pid/);
      else assert.equal(problem, undefined);
    });
  }

  // `(v).f` is the call `f(v)`, also after a subscript or a field. `t.f` passes t's whole row, which is the scalar
  // result when t is a function in FROM (named by its alias, its function or a CAST's type): the check refuses every
  // `t.f` of a refused name, and only `s.t.f` (a table's row, which no refused function takes) as a column.
  const ATTRIBUTE_CALLS: [
    what: string,
    sql: string,
    reading: 'call' | 'column' | 'no call',
    checkRefuses: boolean,
  ][] = [
    ['a parenthesized value', 'SELECT (0::float8).pg_sleep AS hit', 'call', true],
    ['a spaced dot', 'SELECT (0::float8) . "pg_sleep" AS hit', 'call', true],
    ['a subscript', 'SELECT t.d[1].pg_sleep AS hit FROM (SELECT ARRAY[0::float8] AS d) AS t', 'call', true],
    [
      'a column in parentheses',
      'SELECT (t.d).pg_sleep AS hit FROM (SELECT 0::float8 AS d) AS t',
      'call',
      true,
    ],
    ['a function in FROM', 'SELECT t.pg_sleep AS hit FROM abs(0::float8) AS t', 'call', true],
    ['a function in FROM without alias', 'SELECT abs.pg_sleep AS hit FROM abs(0::float8)', 'call', true],
    ['a CAST in FROM', 'SELECT float8.pg_sleep AS hit FROM CAST(0 AS double precision)', 'call', true],
    ['a column of that name', 'SELECT t.pg_sleep AS hit FROM (SELECT 1 AS pg_sleep) AS t', 'column', true],
    ['a whole row', 'SELECT t.pg_sleep AS hit FROM (SELECT 0::float8 AS d) AS t', 'no call', true],
    [
      'a table qualified with its schema',
      'SELECT pg_catalog.pg_am.pg_sleep AS hit FROM pg_catalog.pg_am',
      'no call',
      false,
    ],
  ];
  for (const [what, sql, reading, checkRefuses] of ATTRIBUTE_CALLS) {
    it(`reads attribute notation on ${what} (${reading})`, async () => {
      assert.ok(checkRefuses || reading !== 'call', 'a call the server makes must be refused');
      const ran = await serverRunsProbe(sql, true).then(
        () => true,
        (error: { code?: string }) => {
          // "column does not exist", or no function takes that whole row
          assert.ok(error.code === '42703' || error.code === '42883', `unexpected ${error.code}`);
          return false;
        },
      );
      assert.equal(ran, reading !== 'no call');
      const problem = readOnlySqlProblem(sql);
      if (checkRefuses) assert.match(problem ?? 'accepted', /pg_sleep/);
      else assert.equal(problem, undefined);
    });
  }
});
