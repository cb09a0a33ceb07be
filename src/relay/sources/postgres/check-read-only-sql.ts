// Check of a configured `query` or `change_token_sql`: one SELECT/WITH statement that cannot write and calls no
// function with side effects. A READ ONLY transaction does not stop signals, locks, sleeps, notifications, file
// reads, index maintenance or a second connection, so this check refuses whole families of functions by name, and
// refuses SQL it cannot split into code and literals exactly as the server does.
import { type SqlToken, sqlTokens } from './sql-tokens.ts';

/** Longest text accepted: a configured statement, not a script. */
export const MAX_SQL_LENGTH = 16_384;

/** Words that make a statement write: data-modifying CTEs and `SELECT ... INTO` (which creates a table). */
const WRITING_WORDS = new Set(['insert', 'update', 'delete', 'merge', 'truncate', 'into']);

/** The pg_* functions allowed: they compute a value from their arguments alone. */
const PURE_PG_FUNCTIONS = new Set(['pg_typeof', 'pg_size_pretty', 'pg_size_bytes']);

/** Refused by prefix (with pg_*): each family holds functions that act on the server or run SQL given as text. */
const REFUSED_PREFIXES = [
  'dblink', // a second connection, outside the read-only transaction
  'lo_', // large objects, including server file import and export
  'txid_', // txid_current assigns a transaction id
  'brin_', // summarizing writes the index
  'query_to_xml', // these run SQL text, a cursor, or every table of a schema or database
  'cursor_to_xml',
  'table_to_xml',
  'schema_to_xml',
  'database_to_xml',
  'crosstab', // tablefunc: runs SQL text
  'run_command_on_', // Citus: SQL text run on other nodes, over connections of their own
  'master_run_on_',
  'citus_run_',
  'http_', // pgsql-http and pg_net: requests to other hosts
  'postgres_fdw_',
  'binary_upgrade_',
  'bt_index_', // amcheck: takes locks that block writers
  'heap_force_', // pg_surgery: changes rows
  'autoprewarm_',
  'sepgsql_', // sepgsql: setcon changes the session's security label, restorecon relabels every object
];

/** Refused by exact name. */
const REFUSED_NAMES = new Set([
  'set_config', // session state (current_setting only reads it)
  'setseed',
  'set_limit', // pg_trgm: a session setting
  'nextval', // sequences advance outside the transaction
  'setval',
  'loread',
  'lowrite',
  // Cloud extensions that reach outside the database, as their functions are named when the extension's schema is
  // on the search_path (qualified calls are refused by schema, below): object storage, serverless functions and
  // machine-learning endpoints, which read or write data elsewhere whatever the transaction allows.
  'table_import_from_s3', // aws_s3
  'query_export_to_s3',
  'create_s3_uri', // aws_commons: the arguments of the aws_s3 and aws_lambda calls
  'create_aws_credentials',
  'create_lambda_function_arn',
  'invoke', // aws_lambda
  'invoke_endpoint', // aws_ml (aws_sagemaker)
  'invoke_model', // aws_ml (aws_bedrock)
  'invoke_model_get_embeddings',
  'blob_get', // azure_storage
  'blob_put',
  'blob_list',
  'embedding', // google_ml_integration
  'ml_predict_row',
  'predict_row',
  'ts_stat', // both run SQL given as text
  'ts_rewrite',
  'connectby', // tablefunc: runs SQL built from text
  'xpath_table', // xml2: the same
  'xslt_process', // xml2: may fetch documents
  'gin_clean_pending_list', // writes the index
  'verify_heapam',
  'http',
  // pg_cron, with its schema on the search_path: jobs run later by its background worker, outside the transaction.
  'unschedule',
  'alter_job',
]);

/**
 * Refused only called as `name(...)`: each takes two arguments or more, so `t.name` and `(v).name`, which pass one,
 * name a column rather than call it.
 */
const REFUSED_CALLS = new Set([
  'schedule', // pg_cron, with its schema on the search_path
  'schedule_in_database',
]);

/**
 * Schemas of extensions whose every function reaches outside the database (or administers that access): a call
 * qualified with one is refused whatever the function's name.
 */
const REFUSED_SCHEMAS = new Set([
  'aws_s3',
  'aws_lambda',
  'aws_commons',
  'aws_sagemaker',
  'aws_comprehend',
  'aws_bedrock',
  'azure_storage',
  'azure_ai',
  'azure_openai',
  'azure_cognitive',
  'azure_ml',
  'google_ml',
  'net', // pg_net: HTTP requests, sent by its background worker
  'dblink',
  'postgres_fdw',
  'cron', // pg_cron: SQL scheduled to run later, outside the transaction
  'utl_file', // orafce: reads, writes and removes server files
  'dbms_pipe', // orafce: messages to other sessions, through shared memory
  'dbms_alert',
  'dbms_sql', // orafce: runs SQL given as text
]);

/** Views that read the server's configuration files (superuser only by default: a second line of defence). */
const FILE_VIEWS = new Set(['pg_hba_file_rules', 'pg_ident_file_mappings', 'pg_file_settings']);

/**
 * Why a `table` source may not be read, or undefined: the views a query may not name are not served as a table
 * either (in any schema and case, as the query check compares them).
 */
export function readableTableProblem(name: string): string | undefined {
  const lower = name.toLowerCase();
  return FILE_VIEWS.has(lower) ? fileViewProblem(lower) : undefined;
}

function fileViewProblem(name: string): string {
  return `must not read \`${name}\`: it reads the server's configuration files`;
}

/** Why the SQL is refused, or undefined when it passes. */
export function readOnlySqlProblem(sql: string): string | undefined {
  if (sql.length > MAX_SQL_LENGTH) return `must be at most ${MAX_SQL_LENGTH} characters`;
  // Anywhere, even in a literal or comment: one statement, and no lexer subtlety decides where it ends.
  if (sql.includes(';')) return 'must be a single statement without `;`';
  if (hasControlCharacter(sql)) return 'must not contain control characters other than tab and newlines';
  const problem = tokensProblem(sqlTokens(sql, true));
  if (problem) return problem;
  // The relay pins standard_conforming_strings on; the SQL must also pass as a server with it off would read it,
  // so that nothing depends on the pin.
  const offProblem = tokensProblem(sqlTokens(sql, false));
  return (
    offProblem && `${offProblem} (read with standard_conforming_strings off: a backslash escapes in '...')`
  );
}

/** The row-lock clauses by the word after FOR, named in the refusal as the SQL wrote them. */
const ROW_LOCKS: ReadonlyMap<string, string> = new Map([
  ['update', 'FOR UPDATE'],
  ['share', 'FOR SHARE'],
  ['no', 'FOR NO KEY UPDATE'],
  ['key', 'FOR KEY SHARE'],
]);

function tokensProblem(tokens: SqlToken[] | string): string | undefined {
  if (typeof tokens === 'string') return tokens;
  const first = tokens[0];
  if (!first) return 'is empty';
  if (first.kind !== 'word' || (first.text !== 'select' && first.text !== 'with')) {
    return 'must start with SELECT or WITH';
  }
  // Per parenthesis level, whether it holds a query (whose FROM names relations); the statement itself does.
  const queryLevels = [true];
  const chains: NameChain[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as SqlToken;
    const next = tokens[i + 1];
    if (token.kind === 'symbol' && token.text === '(') {
      queryLevels.push(next?.kind === 'word' && (next.text === 'select' || next.text === 'with'));
    } else if (token.kind === 'symbol' && token.text === ')') {
      queryLevels.pop();
      // The relay wraps the SQL in a subquery: a `)` of its own would close that and read on at statement level.
      if (queryLevels.length === 0) return 'must have balanced parentheses';
    }
    if (token.kind === 'word' && WRITING_WORDS.has(token.text)) {
      return token.text === 'into'
        ? 'must not use SELECT ... INTO (it creates a table)'
        : `must not modify data (\`${token.text.toUpperCase()}\`, for example in a WITH clause)`;
    }
    if (token.kind === 'word' && token.text === 'for' && next?.kind === 'word') {
      const clause = ROW_LOCKS.get(next.text);
      if (clause) return `must not take row locks (${clause})`;
    }
    if (!isName(token)) continue;
    const chain = nameChain(tokens, chains, i);
    chains[i] = chain;
    const name = comparedName(token.text);
    if (FILE_VIEWS.has(name)) return fileViewProblem(name);
    // A call is a name before `(`, comments and spaces between them dropped; a schema before it changes nothing.
    const direct = next?.kind === 'symbol' && next.text === '(';
    if (direct && REFUSED_CALLS.has(name)) return `must not call \`${name}\`: ${refusedWhy(name)}`;
    if (isRefusedFunction(name)) {
      if (direct || chain.afterValue) return `must not call \`${name}\`: ${refusedWhy(name)}`;
      // Only where the chain ends: in `s.t.f`, `s.t` names a table.
      const ends = next?.kind !== 'symbol' || next.text !== '.';
      if (ends && chain.parts === 2 && !namesRelation(tokens, chain.start, queryLevels.at(-1) === true)) {
        return (
          `must not call \`${name}\`: ${refusedWhy(name)} (\`t.${name}\` calls it with t's row, the ` +
          'result itself when t is a function in FROM; name a column so called without its table)'
        );
      }
    }
    const schema = direct ? qualifierOf(tokens, i) : undefined;
    if (schema !== undefined && REFUSED_SCHEMAS.has(schema)) {
      return `must not call \`${schema}.${name}\`: the functions of ${schema} reach outside the database or the transaction`;
    }
  }
  return queryLevels.length === 1 ? undefined : 'must have balanced parentheses';
}

function isName(token: SqlToken | undefined): token is Extract<SqlToken, { kind: 'word' | 'quoted' }> {
  return token?.kind === 'word' || token?.kind === 'quoted';
}

/**
 * Where a name stands in a dotted chain: `parts` names so far from `start`, or after a value (`afterValue`).
 * PostgreSQL reads `(v).f`, `t.a[1].f` and `(v).a.f` as the call `f(v)` (attribute notation), and `t.f`, when t
 * has no column f, as `f` of t's whole row, which is the function's result itself when t is a scalar function in
 * FROM (named by its alias, by its function, or by the type of a CAST). `s.t.f` and longer name a table, whose row
 * only a function of a record or polymorphic argument takes: no refused family has one with an effect.
 */
interface NameChain {
  readonly start: number;
  readonly parts: number;
  readonly afterValue: boolean;
}

/** The chain of the name at `at`, from the chain of the name before its `.` (linear over a long chain). */
function nameChain(tokens: readonly SqlToken[], chains: readonly NameChain[], at: number): NameChain {
  const dot = tokens[at - 1];
  if (dot?.kind !== 'symbol' || dot.text !== '.') return { start: at, parts: 1, afterValue: false };
  const before = chains[at - 2];
  if (!isName(tokens[at - 2]) || !before) return { start: at, parts: 1, afterValue: true };
  return { start: before.start, parts: before.parts + 1, afterValue: before.afterValue };
}

/**
 * Whether the chain starting at `start` names a relation: after JOIN, ONLY or TABLE, or after the FROM of a query
 * (not the FROM of `IS DISTINCT FROM`, nor one inside substring(), extract() or trim()).
 */
function namesRelation(tokens: readonly SqlToken[], start: number, queryLevel: boolean): boolean {
  const before = tokens[start - 1];
  if (before?.kind !== 'word') return false;
  if (before.text === 'join' || before.text === 'only' || before.text === 'table') return true;
  const distinct = tokens[start - 2];
  return before.text === 'from' && queryLevel && !(distinct?.kind === 'word' && distinct.text === 'distinct');
}

/** The schema a name at `at` is qualified with (`s.f`, `db.s.f`), lower-cased; undefined when unqualified. */
function qualifierOf(tokens: readonly SqlToken[], at: number): string | undefined {
  const dot = tokens[at - 1];
  const schema = tokens[at - 2];
  if (dot?.kind !== 'symbol' || dot.text !== '.' || !isName(schema)) return undefined;
  return comparedName(schema.text);
}

/** A control character the server does not read as a space (\v is one only from PostgreSQL 16 on). */
function hasControlCharacter(sql: string): boolean {
  for (let i = 0; i < sql.length; i++) {
    const code = sql.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d) || code === 0x7f) {
      return true;
    }
  }
  return false;
}

/**
 * A name as compared with the refused ones, without regard to case. A single-byte database (LATIN5, WIN1254) with
 * a Turkish locale folds an unquoted `İ` to an ASCII `i` (`SET_CONFİG` names set_config there), which the
 * scanner's ASCII folding, right for keywords, leaves alone.
 */
function comparedName(text: string): string {
  return text.replaceAll('\u0130', 'i').toLowerCase();
}

function isRefusedFunction(name: string): boolean {
  if (name.startsWith('pg_')) return !PURE_PG_FUNCTIONS.has(name);
  return REFUSED_NAMES.has(name) || REFUSED_PREFIXES.some((prefix) => name.startsWith(prefix));
}

function refusedWhy(name: string): string {
  return name.startsWith('pg_')
    ? 'the pg_* family administers the server (of it, only pg_typeof, pg_size_pretty and pg_size_bytes are allowed)'
    : 'it has effects beyond reading, or runs SQL given as text';
}
