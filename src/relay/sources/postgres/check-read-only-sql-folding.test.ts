// How the configured-SQL check folds unquoted names: as the server does in every database encoding. In a
// single-byte database (LATIN5, WIN1254) with a Turkish locale the server folds `İ` (U+0130) to an ASCII `i`, so
// `SET_CONFİG(...)` there calls set_config and `DBLİNK_EXEC(...)` writes through a second connection.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readOnlySqlProblem } from './check-read-only-sql.ts';

describe('readOnlySqlProblem folds names as a Turkish single-byte database does', () => {
  const refused: [string, string, RegExp][] = [
    ['set_config', "SELECT SET_CONF\u0130G('application_name', 'x', false) AS a", /set_config/],
    ['txid_current', 'SELECT TX\u0130D_CURRENT() AS a', /txid_current/],
    [
      'dblink_exec',
      "SELECT * FROM DBL\u0130NK_EXEC('dbname=x', 'DELETE FROM t') AS a(r text)",
      /dblink_exec/,
    ],
    ['a refused schema', "SELECT UTL_F\u0130LE.fopen('/tmp', 'a', 'w') AS a", /utl_file/],
    ['a view reading configuration files', 'SELECT * FROM PG_F\u0130LE_SETTINGS', /pg_file_settings/],
    [
      'a pg_cron call',
      "SELECT SCHEDULE_\u0130N_DATABASE('j', '* * * * *', 'DELETE FROM t', 'db') AS a",
      /schedule_in_database/,
    ],
    ['attribute notation', 'SELECT t.INVOKE_ENDPO\u0130NT FROM abs(1) AS t', /invoke_endpoint/],
  ];
  for (const [what, sql, reason] of refused) {
    it(`refuses ${what} spelled with a dotted capital I`, () => {
      assert.match(readOnlySqlProblem(sql) ?? 'accepted', reason);
    });
  }

  it('accepts other names with a dotted capital I', () => {
    assert.equal(readOnlySqlProblem('SELECT \u0130L, \u0130LCE AS district FROM addresses'), undefined);
  });
});
