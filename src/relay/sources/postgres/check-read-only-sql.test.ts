import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SQL_LENGTH, readOnlySqlProblem } from './check-read-only-sql.ts';

const LONG_TAG = `$${'T'.repeat(80)}$`;

/**
 * A call of each cloud-extension family (and the older families that reach outside the database) as written
 * qualified, unqualified (the schema on the search_path), quoted and spaced: each is refused, naming the call.
 */
function outsideCalls(): [string, string, RegExp][] {
  const calls: [schema: string, name: string, args: string][] = [
    ['aws_s3', 'table_import_from_s3', "'t', '', '(format csv)', 'bucket', 'key', 'us-east-1'"],
    ['aws_s3', 'query_export_to_s3', "'SELECT 1', aws_commons.create_s3_uri('b', 'k', 'r')"],
    ['aws_lambda', 'invoke', "'arn:aws:lambda:us-east-1:1:function:f', '{}'::json"],
    ['aws_commons', 'create_s3_uri', "'bucket', 'key', 'us-east-1'"],
    ['aws_commons', 'create_aws_credentials', "'id', 'secret', ''"],
    ['aws_sagemaker', 'invoke_endpoint', "'endpoint', NULL, 'x'"],
    ['aws_bedrock', 'invoke_model', "'model', 'application/json', '*/*', '{}'"],
    ['azure_storage', 'blob_get', "'account', 'container', 'path'"],
    ['azure_storage', 'blob_list', "'account', 'container'"],
    ['google_ml', 'embedding', "'model', 'text'"],
    ['google_ml', 'predict_row', "'model', '{}'::json"],
    ['net', 'http_get', "'https://example.org'"],
    ['net', 'http_post', "'https://example.org', '{}'::jsonb"],
    ['public', 'http', "('GET', 'https://example.org', NULL, NULL, NULL)::http_request"],
    ['public', 'http_get', "'https://example.org'"],
    ['public', 'http_post', "'https://example.org', 'x', 'text/plain'"],
    ['public', 'dblink_exec', "'dbname=x', 'DELETE FROM t'"],
    ['public', 'postgres_fdw_disconnect_all', ''],
    ['pg_catalog', 'lo_export', "16401, '/tmp/out'"],
    ['pg_catalog', 'pg_read_binary_file', "'PG_VERSION'"],
    ['pg_catalog', 'pg_ls_dir', "'.'"],
    ['pg_catalog', 'pg_stat_file', "'PG_VERSION'"],
    // Session state, and work done outside the read-only transaction.
    ['pg_catalog', 'set_config', "'search_path', 'x', false"],
    ['pg_catalog', 'sepgsql_setcon', "'unconfined_u:unconfined_r:unconfined_t:s0'"],
    ['cron', 'schedule', "'* * * * *', 'DELETE FROM t'"],
    ['cron', 'schedule_in_database', "'job', '* * * * *', 'DELETE FROM t', 'db'"],
    ['cron', 'unschedule', '42'],
    ['cron', 'alter_job', "42, command := 'DELETE FROM t'"],
    ['public', 'dblink_connect', "'dbname=x'"],
    ['public', 'pg_background_launch', "'DELETE FROM t'"],
    ['pg_catalog', 'lo_import', "'/etc/passwd'"],
    ['pg_catalog', 'pg_notify', "'chan', 'x'"],
    ['pg_catalog', 'pg_advisory_lock', '42'],
    ['pg_catalog', 'pg_advisory_xact_lock_shared', '42'],
  ];
  return calls.flatMap(([schema, name, args]): [string, string, RegExp][] => [
    [`${schema}.${name}`, `SELECT ${schema}.${name}(${args}) AS r`, new RegExp(name)],
    [`${name} unqualified`, `SELECT * FROM ${name}(${args}) AS r`, new RegExp(name)],
    [
      `${schema}.${name} quoted and spaced`,
      `SELECT "${schema.toUpperCase()}" . /* x */ "${name}" (${args}) AS r`,
      new RegExp(name),
    ],
  ]);
}

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
      // Names of refused functions as unqualified or schema-qualified columns, inside literals, comments and
      // continued literals.
      'SELECT pg_note, lo_income, public.people.pg_note FROM people',
      "SELECT 'a'\n-- , pg_sleep(1)\n'pg_sleep(1)' AS note FROM people",
      `SELECT ${LONG_TAG} pg_sleep(1) $T$ ${LONG_TAG} AS note FROM people`,
      "SELECT E'\\' , pg_sleep(1) --' AS note FROM people",
      'SELECT 1 /* outer /* inner */ pg_sleep(1) */ AS id',
      'SELECT 2 *-- , pg_sleep(1)\n 3 AS id',
      'SELECT 1 AS "a""b\', pg_sleep(1) --\'"',
      // A backslash that reads the same whatever standard_conforming_strings says.
      "SELECT id FROM people WHERE code LIKE 'a\\_%'",
      "SELECT pg_typeof(id), pg_size_pretty(1024::bigint), xmlserialize(CONTENT xml '<a/>' AS text) FROM t",
      // Qualified names of tables and columns that share a refused family's prefix.
      'SELECT h.status, s.id FROM analytics.http_logs AS h JOIN public.lo_items AS s USING (id)',
      'SELECT id FROM ONLY analytics.http_logs CROSS JOIN LATERAL (SELECT 1 FROM public.lo_items) AS s',
      'SELECT (SELECT max(id) FROM analytics.pg_events) AS m, ARRAY(TABLE public.lo_items) AS a',
      'SELECT c.relname FROM pg_catalog.pg_class AS c, (SELECT 1 AS n) AS x',
      'SELECT (t.address).city, (t.tags)[1] AS tag, t.* FROM people AS t',
      'SELECT 1.5 AS n, t.id FROM people AS t',
      // Tables, columns and functions of other schemas that share a refused schema's or function's name.
      'SELECT n.label, invoke, embedding, aws_s3.bucket FROM net.nodes AS n, storage.aws_s3 AS aws_s3',
      'SELECT upper(net.label), azure_storage.blob_count FROM net, azure_storage',
      'SELECT analytics.net_revenue(id) FROM analytics.orders',
      // pg_cron's schedule takes two arguments or more: as `t.schedule` or `(v).schedule` it is a column.
      "SELECT e.schedule, schedule, ('x'::text).schedule_in_database AS s FROM events AS e",
      'SELECT sepgsql, unschedule, alter_job FROM cron_jobs',
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
    ['a row lock', 'SELECT * FROM people FOR SHARE', /row locks \(FOR SHARE\)/],
    ['a key-share row lock', 'SELECT * FROM people FOR KEY SHARE', /row locks \(FOR KEY SHARE\)/],
    ['an update row lock', 'SELECT * FROM people FOR UPDATE', /row locks \(FOR UPDATE\)/],
    ['a no-key update row lock', 'select * from people for no key update', /row locks \(FOR NO KEY UPDATE\)/],
    ['a parenthesis closing the wrapping subquery', 'SELECT 1) AS s, (SELECT 2', /balanced parentheses/],
    ['an unclosed parenthesis', 'SELECT (1', /balanced parentheses/],
    ['a vertical tab', 'SELECT 1\v AS id', /control characters/],
    ['a NUL', 'SELECT 1\0', /control characters/],
    // Session state, locks, sleeps, whatever the spelling.
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
    ['a sleep', 'SELECT pg_sleep(60)', /pg_sleep/],
    ['setseed', 'SELECT setseed(0.5)', /setseed/],
    // Effects a read-only transaction does not stop.
    ['a backend killed', 'SELECT pg_terminate_backend(12345)', /pg_terminate_backend/],
    ['a server file read', "SELECT pg_read_file('postgresql.conf')", /pg_read_file/],
    ['a notification', "SELECT pg_notify('chan', 'x')", /pg_notify/],
    ['a security label change', 'SELECT sepgsql_restorecon(NULL)', /sepgsql_restorecon/],
    [
      'another pg_cron function',
      'SELECT cron.job_cache_invalidate()',
      /cron\.job_cache_invalidate`: .*transaction/,
    ],
    // orafce: server files, messages between sessions, and SQL given as text, whatever the transaction allows.
    [
      'a server file removed (orafce)',
      "SELECT utl_file.fremove('dir', 'f')",
      /utl_file\.fremove`: .*outside/,
    ],
    ['a server file written (orafce)', 'SELECT "UTL_FILE" . put_line(h, \'x\') FROM t', /utl_file\.put_line/],
    [
      'a message to another session (orafce)',
      "SELECT dbms_pipe.send_message('p')",
      /dbms_pipe\.send_message/,
    ],
    ['an alert to another session (orafce)', "SELECT dbms_alert.signal('a', 'm')", /dbms_alert\.signal/],
    [
      'SQL given as text (orafce)',
      "SELECT dbms_sql.parse(c, 'DELETE FROM t') FROM h AS c",
      /dbms_sql\.parse/,
    ],
    ['a pg_cron job dropped through attribute notation', 'SELECT (42::bigint).unschedule', /unschedule/],
    [
      'a pg_cron job changed on a function in FROM',
      'SELECT t.alter_job FROM abs(42::bigint) AS t',
      /alter_job/,
    ],
    ['a background worker launched', "SELECT ('DELETE FROM t'::text).pg_background_launch", /pg_background/],
    ['dblink', "SELECT * FROM dblink('host=x', 'DELETE FROM t') AS r(a int)", /dblink/],
    // `(v).f` is `f(v)`: a call without `f(`.
    [
      'dblink through attribute notation',
      "SELECT ('dbname=x'::text).dblink_connect AS c, ('DELETE FROM t'::text).dblink_exec AS w",
      /dblink_connect/,
    ],
    [
      'a server file read through attribute notation',
      "SELECT ('PG_VERSION'::text).pg_read_file",
      /pg_read_file/,
    ],
    [
      'an advisory lock through attribute notation',
      'SELECT (42::bigint) . pg_advisory_lock',
      /pg_advisory_lock/,
    ],
    ['a quoted function through attribute notation', 'SELECT (12345)."pg_terminate_backend"', /pg_terminate/],
    ['a call through a subscript', 'SELECT t.paths[1].pg_read_file FROM t', /pg_read_file/],
    ['a call through a field', 'SELECT (t.file).path.pg_read_file FROM t', /pg_read_file/],
    // `t.f` is `f(t)` when t is a function in FROM: its whole row is the function's scalar result.
    [
      'a call on the result of a function in FROM',
      'SELECT t.pg_advisory_lock FROM abs(42::bigint) AS t',
      /pg_advisory_lock/,
    ],
    [
      'a call on a function in FROM named by its function',
      "SELECT upper.pg_read_file FROM upper('pg_version')",
      /pg_read_file/,
    ],
    [
      'a call on a CAST in FROM named by its type',
      'SELECT int8.pg_advisory_lock FROM CAST(43 AS bigint)',
      /pg_advisory_lock/,
    ],
    ['a quoted call on a function in FROM', 'SELECT "T"."setseed" FROM abs(0.5::float8) AS "T"', /setseed/],
    [
      'a call on a function in FROM after IS DISTINCT FROM',
      'SELECT 1 IS DISTINCT FROM t.pg_sleep FROM abs(1::float8) AS t',
      /pg_sleep/,
    ],
    [
      'a call on a function in FROM inside substring',
      "SELECT substring('abc' FROM t.pg_backend_pid) FROM abs(1) AS t",
      /pg_backend_pid/,
    ],
    [
      'dblink on a function in FROM',
      "SELECT t.dblink_exec FROM upper('x') AS t, t.dblink_connect AS c",
      /dblink/,
    ],
    ['a qualified column of a refused name', 'SELECT p.lo_income FROM people AS p', /lo_income/],
    ['a large object through attribute notation', "SELECT ('/etc/passwd'::text).lo_import", /lo_import/],
    ['a sequence through attribute notation', "SELECT ('s'::regclass).nextval", /nextval/],
    ['a view reading pg_hba.conf', 'SELECT * FROM pg_hba_file_rules', /pg_hba_file_rules/],
    ['a view reading postgresql.conf', 'SELECT name FROM pg_catalog.pg_file_settings', /pg_file_settings/],
    ['a view reading pg_ident.conf', 'SELECT * FROM "pg_ident_file_mappings"', /pg_ident_file_mappings/],
    ['a large-object call', "SELECT lo_import('/etc/passwd')", /lo_import/],
    ['a sequence advance', "SELECT nextval('people_id_seq')", /nextval/],
    [
      'a GIN pending-list flush',
      "SELECT gin_clean_pending_list('g_gin'::regclass)",
      /gin_clean_pending_list/,
    ],
    ['a BRIN summary', "SELECT brin_summarize_new_values('g_brin'::regclass)", /brin_summarize_new_values/],
    ['a BRIN range summary', "SELECT brin_summarize_range('g_brin'::regclass, 0)", /brin_summarize_range/],
    ['a BRIN range cleared', "SELECT brin_desummarize_range('g_brin'::regclass, 0)", /brin_desummarize/],
    ['a transaction id assigned', 'SELECT txid_current()', /txid_current/],
    ['a transaction id assigned (new name)', 'SELECT pg_current_xact_id()', /pg_current_xact_id/],
    ['a WAL switch', 'SELECT pg_switch_wal()', /pg_switch_wal/],
    ['a restore point', "SELECT pg_create_restore_point('x')", /pg_create_restore_point/],
    ['a statistics reset', 'SELECT pg_stat_reset()', /pg_stat_reset/],
    ['a shared statistics reset', "SELECT pg_stat_reset_shared('bgwriter')", /pg_stat_reset_shared/],
    ['an unlisted pg_ function', "SELECT pg_copy_physical_replication_slot('a', 'b')", /pg_copy_physical/],
    // Cloud extensions that read or write outside the database: qualified, unqualified and quoted.
    ...outsideCalls(),
    // Any function of those schemas, whatever its name.
    [
      'a pg_net function outside http_*',
      'SELECT * FROM net._http_collect_response(1)',
      /net\._http_collect_response`: the functions of net/,
    ],
    [
      'an azure_storage account change',
      'SELECT "AZURE_STORAGE"."account_add"(\'a\', \'k\')',
      /azure_storage/,
    ],
    ['an aws_comprehend call', "SELECT aws_comprehend.detect_sentiment('x', 'en')", /aws_comprehend/],
    ['a call of a database-qualified schema', "SELECT db.aws_lambda . x('f')", /aws_lambda\.x/],
    // SQL given as text.
    [
      'SQL text run by query_to_xml',
      "SELECT query_to_xml('SELECT pg_sleep(1)', true, true, '')",
      /query_to_xml/,
    ],
    ['a whole schema read as XML', "SELECT schema_to_xml('public', true, true, '')", /schema_to_xml/],
    [
      'SQL text run by ts_stat',
      "SELECT word FROM ts_stat('SELECT (pg_notify(''chan'', ''x'')::text || ''x'')::tsvector')",
      /ts_stat/,
    ],
    [
      'dblink_exec run by ts_stat',
      "SELECT word FROM ts_stat('SELECT dblink_exec(''dbname=x'', ''INSERT INTO victim VALUES (1)'')::tsvector')",
      /ts_stat/,
    ],
    [
      'SQL text run by ts_rewrite',
      "SELECT ts_rewrite('a'::tsquery, 'SELECT pg_sleep(1)::text::tsquery, ''b''::tsquery')",
      /ts_rewrite/,
    ],
    ['SQL text run by crosstab', "SELECT * FROM crosstab('SELECT 1') AS t(a int)", /crosstab/],
    // Citus: SQL text run on other nodes, over connections of their own.
    [
      'SQL text run on every Citus node',
      "SELECT * FROM run_command_on_all_nodes('DELETE FROM t')",
      /run_command_on_all_nodes/,
    ],
    [
      'SQL text run on Citus workers',
      "SELECT result FROM pg_catalog.run_command_on_workers('TRUNCATE t')",
      /run_command_on_workers/,
    ],
    [
      'SQL text run on Citus shards',
      "SELECT run_command_on_shards('t', 'DELETE FROM %s')",
      /run_command_on_shards/,
    ],
    [
      'SQL text run by master_run_on_worker',
      "SELECT * FROM master_run_on_worker(ARRAY['w'], ARRAY[5432], ARRAY['DELETE FROM t'], false)",
      /master_run_on_worker/,
    ],
    [
      'SQL text run by citus_tools',
      "SELECT * FROM citus_run_on_all_workers('DELETE FROM t')",
      /citus_run_on_all_workers/,
    ],
    // Code the server reads where a simpler lexer sees a literal.
    [
      'an escape string continued on the next line',
      "SELECT E'x'\n'\\' ' AS note, 1 AS id, pg_terminate_backend(12345)::text AS killed --'",
      /pg_terminate_backend/,
    ],
    [
      'an escape string continued after a comment and a carriage return',
      "SELECT E'x' -- it's\r'\\' ' AS note, pg_sleep(1) AS b --'",
      /pg_sleep/,
    ],
    [
      'a dollar tag longer than 80 characters',
      `SELECT ${LONG_TAG}'${LONG_TAG} AS note, 1 AS id, pg_read_file('/etc/passwd', 0, 40) AS leaked --'`,
      /pg_read_file/,
    ],
    ['an escape-string bypass', "SELECT E'\\'' AS a, set_config('a','b',false) AS b -- '", /set_config/],
    ['a standard-string bypass', "SELECT '\\' AS a, set_config('a','b',false) AS b -- '", /set_config/],
    [
      'a name starting with a no-break space, then a plain literal',
      "SELECT \u00a0E'\\' AS note, pg_sleep(1) AS b --'",
      /pg_sleep/,
    ],
    ['a dollar tag inside a name', 'SELECT 1 AS a$b$, pg_sleep(1), $b$x$b$ AS c', /pg_sleep/],
    [
      'code that depends on standard_conforming_strings',
      "SELECT 'a\\' AS x, ' AS note, pg_sleep(1) AS b --'",
      /pg_sleep.*standard_conforming_strings off/,
    ],
    ['a Unicode-escaped identifier', "SELECT U&\"\\0073et_config\"('a','b',false)", /Unicode-escaped/],
    ['an unterminated literal', "SELECT 'open", /unterminated/],
    ['a literal unterminated once backslashes escape', "SELECT 'C:\\' AS path", /unterminated.*off/],
    ['an unterminated comment', 'SELECT 1 /* open /* nested */', /unterminated/],
    ['an unterminated dollar quote', 'SELECT $x$ open', /unterminated/],
    ['an unterminated long dollar quote', `SELECT ${LONG_TAG} open $T$`, /unterminated/],
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
