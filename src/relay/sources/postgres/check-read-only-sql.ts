// Lexical check of a configured `query` or `change_token_sql`: one SELECT/WITH statement that cannot write and
// cannot change session state. It is a first line only: every statement also runs in a READ ONLY transaction.

/** Words that make a statement write: data-modifying CTEs and `SELECT ... INTO` (which creates a table). */
const WRITING_WORDS = new Set(['insert', 'update', 'delete', 'merge', 'truncate', 'into']);

/** Functions that change session or server state, take locks, sleep, run SQL text or read server files. */
const STATEFUL_FUNCTIONS = new Set([
  'set_config',
  'nextval',
  'setval',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'pg_notify',
  'pg_cancel_backend',
  'pg_terminate_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'pg_switch_wal',
  'pg_export_snapshot',
  'pg_log_backend_memory_contexts',
  'pg_start_backup',
  'pg_stop_backup',
  'pg_backup_start',
  'pg_backup_stop',
  'txid_current',
  'pg_current_xact_id',
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'cursor_to_xml',
  'cursor_to_xmlschema',
  'loread',
  'lowrite',
]);
const STATEFUL_PREFIXES = [
  'pg_advisory_',
  'pg_try_advisory_',
  'dblink',
  'lo_',
  'pg_create_',
  'pg_drop_',
  'pg_logical_',
  'pg_replication_',
  'pg_read_',
  'pg_ls_',
  'pg_stat_file',
  'pg_file_',
  'pg_stat_reset',
];

/** Longest text accepted: a configured statement, not a script. */
export const MAX_SQL_LENGTH = 16_384;

type Token =
  | { readonly kind: 'word'; readonly text: string }
  | { readonly kind: 'quoted'; readonly text: string }
  | { readonly kind: 'string' }
  | { readonly kind: 'symbol'; readonly text: string };

/** Why the SQL is refused, or undefined when it passes. */
export function readOnlySqlProblem(sql: string): string | undefined {
  if (sql.length > MAX_SQL_LENGTH) return `must be at most ${MAX_SQL_LENGTH} characters`;
  // Anywhere, even in a literal or comment: one statement, and no lexer subtlety decides where it ends.
  if (sql.includes(';')) return 'must be a single statement without `;`';
  if (sql.includes('\0')) return 'must not contain NUL characters';
  const tokens = tokenize(sql);
  if (typeof tokens === 'string') return tokens;
  const first = tokens[0];
  if (!first) return 'is empty';
  if (first.kind !== 'word' || (first.text !== 'select' && first.text !== 'with')) {
    return 'must start with SELECT or WITH';
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    const next = tokens[i + 1];
    if (token.kind === 'word' && WRITING_WORDS.has(token.text)) {
      return token.text === 'into'
        ? 'must not use SELECT ... INTO (it creates a table)'
        : `must not modify data (\`${token.text.toUpperCase()}\`, for example in a WITH clause)`;
    }
    if (token.kind === 'word' && token.text === 'for' && next?.kind === 'word') {
      if (['update', 'share', 'no', 'key'].includes(next.text)) return 'must not take row locks (FOR SHARE)';
    }
    const isName = token.kind === 'word' || token.kind === 'quoted';
    if (isName && next?.kind === 'symbol' && next.text === '(' && isStatefulFunction(token.text)) {
      return `must not call \`${token.text}\`: it changes session or server state`;
    }
  }
  return undefined;
}

function isStatefulFunction(name: string): boolean {
  return STATEFUL_FUNCTIONS.has(name) || STATEFUL_PREFIXES.some((prefix) => name.startsWith(prefix));
}

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const DOLLAR_TAG = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

/**
 * PostgreSQL's lexical structure, as far as deciding what is code: comments (nested), standard strings ('' only),
 * escape strings E'..' (backslash escapes), dollar-quoted strings, quoted identifiers and words. Lower-cased names
 * are returned so that `"SET_CONFIG"` and `Set_Config` are both recognised. Returns a reason on a lexical error.
 */
function tokenize(sql: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  const unterminated = 'has an unterminated string, quoted identifier or comment';
  while (i < sql.length) {
    const c = sql[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (sql.startsWith('--', i)) {
      // PostgreSQL ends a line comment at a carriage return as well as at a line feed.
      const end = sql.slice(i).search(/[\n\r]/);
      i = end < 0 ? sql.length : i + end + 1;
    } else if (sql.startsWith('/*', i)) {
      let depth = 1;
      i += 2;
      while (depth > 0) {
        if (i >= sql.length) return unterminated;
        if (sql.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === "'") {
      const end = standardStringEnd(sql, i);
      if (end < 0) return unterminated;
      tokens.push({ kind: 'string' });
      i = end;
    } else if (c === '"') {
      const end = quotedEnd(sql, i, '"');
      if (end < 0) return unterminated;
      tokens.push({
        kind: 'quoted',
        text: sql
          .slice(i + 1, end - 1)
          .replaceAll('""', '"')
          .toLowerCase(),
      });
      i = end;
    } else if (c === '$') {
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 80));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        if (close < 0) return unterminated;
        tokens.push({ kind: 'string' });
        i = close + tag[0].length;
      } else {
        // A positional parameter ($1) or a stray dollar: neither names anything.
        i++;
        while (i < sql.length && /[0-9]/.test(sql[i] as string)) i++;
        tokens.push({ kind: 'symbol', text: '$' });
      }
    } else if (IDENT_START.test(c)) {
      let end = i + 1;
      while (end < sql.length && IDENT_PART.test(sql[end] as string)) end++;
      const word = sql.slice(i, end).toLowerCase();
      const after = sql[end];
      if ((word === 'e' || word === 'x' || word === 'b' || word === 'n') && after === "'") {
        const close = word === 'e' ? escapeStringEnd(sql, end) : standardStringEnd(sql, end);
        if (close < 0) return unterminated;
        tokens.push({ kind: 'string' });
        i = close;
      } else if (word === 'u' && after === '&') {
        // U&"..." spells an identifier through escapes (U&"\0073et_config"), which would hide a name.
        if (sql[end + 1] === '"') return 'must not use Unicode-escaped identifiers (U&"...")';
        if (sql[end + 1] === "'") {
          const close = standardStringEnd(sql, end + 1);
          if (close < 0) return unterminated;
          tokens.push({ kind: 'string' });
          i = close;
        } else {
          tokens.push({ kind: 'word', text: word });
          i = end;
        }
      } else {
        tokens.push({ kind: 'word', text: word });
        i = end;
      }
    } else {
      tokens.push({ kind: 'symbol', text: c });
      i++;
    }
  }
  return tokens;
}

/** End (exclusive) of a '...' string starting at `start`, where only '' escapes a quote; -1 if unterminated. */
function standardStringEnd(sql: string, start: number): number {
  return quotedEnd(sql, start, "'");
}

function quotedEnd(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return -1;
}

/** End (exclusive) of an E'...' string: a backslash escapes the next character, '' escapes a quote. */
function escapeStringEnd(sql: string, start: number): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (c === '\\') i += 2;
    else if (c === "'") {
      if (sql[i + 1] === "'") i += 2;
      else return i + 1;
    } else i++;
  }
  return -1;
}
