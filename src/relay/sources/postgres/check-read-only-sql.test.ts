import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SQL_LENGTH, readOnlySqlProblem } from './check-read-only-sql.ts';

describe('readOnlySqlProblem', () => {
  it('accepts plain reads, CTEs, comments, literals and names that merely contain a keyword', () => {
    for (const sql of [
      'SELECT id, name FROM people',
      'select * from "Public"."People" where status = \'active\'',
      'WITH adults AS (SELECT * FROM people WHERE age >= 18) SELECT id FROM adults',
      '/* nightly */ SELECT id FROM people -- trailing note',
      "SELECT id, deleted_at, updated_by, insert_batch, lo_income FROM people WHERE note = 'delete me later'",
      "SELECT E'it''s', $$dollar 'quoted'$$, $tag$ set_config('a','b',false) $tag$ FROM t",
      'SELECT substring(name from 1 for 3) FROM people',
      "SELECT current_setting('TimeZone') AS tz, count(*) FROM people",
      "SELECT id FROM people WHERE name = U&'d\\0061t\\+000061'",
    ]) {
      assert.equal(readOnlySqlProblem(sql), undefined, sql);
    }
  });

  const refused: [string, string, RegExp][] = [
    ['a semicolon', 'SELECT 1; DROP TABLE people', /single statement/],
    ['a trailing semicolon', 'SELECT 1;', /single statement/],
    ['a semicolon hidden in a literal', "SELECT ';'", /single statement/],
    ['an empty statement', '  -- nothing\n ', /is empty/],
    ['a statement that is not a read', 'DELETE FROM people', /start with SELECT or WITH/],
    ['a bare TABLE command', 'TABLE people', /start with SELECT or WITH/],
    [
      'a data-modifying CTE',
      'WITH gone AS (DELETE FROM people RETURNING id) SELECT * FROM gone',
      /must not modify data \(`DELETE`/,
    ],
    ['an INSERT in a CTE', 'WITH x AS (INSERT INTO log VALUES (1) RETURNING 1) SELECT 1', /INSERT/],
    ['an UPDATE in a CTE', 'with x as (update people set a = 1 returning 1) select 1', /UPDATE/],
    [
      'a MERGE in a CTE',
      'WITH x AS (MERGE INTO a USING b ON true WHEN MATCHED THEN DO NOTHING) SELECT 1',
      /MERGE/,
    ],
    ['SELECT INTO', 'SELECT * INTO copy_of_people FROM people', /INTO/],
    ['a row lock', 'SELECT * FROM people FOR SHARE', /row locks/],
    ['a key-share row lock', 'SELECT * FROM people FOR KEY SHARE', /row locks/],
    ['set_config', "SELECT set_config('search_path', 'evil', false)", /set_config/],
    ['a quoted session function', "SELECT \"set_config\"('a', 'b', false)", /set_config/],
    [
      'a schema-qualified quoted session function',
      'SELECT "pg_catalog"."SET_CONFIG"(\'a\',\'b\',false)',
      /set_config/,
    ],
    ['a session function behind a comment', "SELECT set_config /* x */ ('a','b',false)", /set_config/],
    [
      'a session function after a line comment ended by a carriage return',
      "SELECT id FROM people --\rWHERE set_config('a','b',false) IS NOT NULL",
      /set_config/,
    ],
    ['an advisory lock', 'SELECT pg_advisory_lock(42)', /pg_advisory_lock/],
    ['a try advisory lock', 'SELECT pg_try_advisory_xact_lock(42)', /pg_try_advisory_xact_lock/],
    ['dblink', "SELECT * FROM dblink('host=x', 'DELETE FROM t') AS r(a int)", /dblink/],
    ['a large-object call', "SELECT lo_import('/etc/passwd')", /lo_import/],
    ['a sequence advance', "SELECT nextval('people_id_seq')", /nextval/],
    ['a sleep', 'SELECT pg_sleep(60)', /pg_sleep/],
    [
      'SQL text run by a function',
      "SELECT query_to_xml('DELETE FROM people', true, true, '')",
      /DELETE|query_to_xml/,
    ],
    ['a server file read', "SELECT pg_read_file('postgresql.conf')", /pg_read_file/],
    ['an escape-string bypass', "SELECT E'\\'' AS a, set_config('a','b',false) AS b -- '", /set_config/],
    ['a standard-string bypass', "SELECT '\\' AS a, set_config('a','b',false) AS b -- '", /set_config/],
    ['a Unicode-escaped identifier', "SELECT U&\"\\0073et_config\"('a','b',false)", /Unicode-escaped/],
    ['an unterminated literal', "SELECT 'open", /unterminated/],
    ['an unterminated comment', 'SELECT 1 /* open /* nested */', /unterminated/],
    ['an unterminated dollar quote', 'SELECT $x$ open', /unterminated/],
  ];
  for (const [what, sql, reason] of refused) {
    it(`refuses ${what}`, () => {
      const problem = readOnlySqlProblem(sql);
      assert.ok(problem, `accepted: ${sql}`);
      assert.match(problem, reason);
    });
  }

  it('refuses text longer than the limit', () => {
    assert.match(
      readOnlySqlProblem(`SELECT ${'a'.repeat(MAX_SQL_LENGTH)}`) ?? '',
      new RegExp(`at most ${MAX_SQL_LENGTH}`),
    );
  });
});
