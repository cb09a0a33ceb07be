// What every PostgreSQL statement of the relay shares: a READ ONLY transaction with a statement timeout, raw text
// values (coerced by the store's own rules), quoted identifiers, and one classification of driver errors.
import type pg from 'pg';
import { CLIENT_TIMEOUT_MESSAGE } from '../../../platform/postgres/client-timeout.ts';
import { driverUrl } from '../../../platform/postgres/connection-url.ts';
import type { PostgresSourceConfig } from '../../config/schema.ts';

/**
 * The settings that decide the text the server writes for the mapped types, pinned in every transaction: a
 * database or role may set others (`ALTER DATABASE ... SET DateStyle = 'SQL, DMY'`), which would make dates
 * unreadable or, with a negative `extra_float_digits`, round doubles silently. 3 digits write every double so that
 * it reads back exactly on any server version (12 and later write the shortest such form for any positive value).
 */
const OUTPUT_SETTINGS: readonly (readonly [name: string, value: string])[] = [
  ['DateStyle', 'ISO, YMD'],
  ['IntervalStyle', 'postgres'],
  ['extra_float_digits', '3'],
  // A bytea read as a string (or a view's text of one): `escape` would write other text for the same bytes.
  ['bytea_output', 'hex'],
];

/**
 * Opens the transaction every snapshot read runs in. READ ONLY makes any write fail, whatever a view or function
 * tries; the settings are LOCAL so they end with the transaction (and work where startup options are ignored).
 * `standard_conforming_strings` pins the literal rules the configured SQL was checked with. With `snapshot` (an
 * id pg_export_snapshot returned, checked by the caller), the transaction reads that moment of the database.
 */
export function beginReadOnly(
  source: Pick<PostgresSourceConfig, 'query_timeout'>,
  snapshot?: string,
): string {
  const output = OUTPUT_SETTINGS.map(([name, value]) => `SET LOCAL ${name} = '${value}'`);
  return [
    ...(snapshot === undefined
      ? ['BEGIN READ ONLY']
      : ['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', `SET TRANSACTION SNAPSHOT '${snapshot}'`]),
    `SET LOCAL statement_timeout = ${timeoutMs(source)}`,
    "SET LOCAL TIME ZONE 'UTC'",
    'SET LOCAL standard_conforming_strings = on',
    ...output,
  ].join('; ');
}

/**
 * The guard of a live read: the first statement of the read's implicit transaction (everything up to its Sync),
 * which makes the transaction READ ONLY (nothing run later in it can switch that off: PostgreSQL refuses
 * read-write once a query ran) and sets its statement timeout and the output settings, TimeZone UTC included
 * whatever the columns' types: a view may compute a timestamp, date or text from a timestamptz in the session's
 * zone, as snapshots compute it in UTC. `set_config(..., true)` is SET LOCAL without the warning SET LOCAL logs
 * outside an explicit transaction block; the settings end with the transaction. It is called as
 * `pg_catalog.set_config`: a function a view calls may set the session's search_path (that outlives its read) to a
 * schema with a `set_config` of its own, which the guard of every later read on the connection would otherwise call.
 * It also releases the session-level advisory locks a function of an earlier read took: they outlive its
 * transaction, and a pooled connection may outlive any read.
 */
export function liveGuard(source: Pick<PostgresSourceConfig, 'query_timeout'>): string {
  const set = (name: string, value: string) => `pg_catalog.set_config('${name}', '${value}', true)`;
  const settings = [
    set('transaction_read_only', 'on'),
    set('statement_timeout', String(timeoutMs(source))),
    ...OUTPUT_SETTINGS.map(([name, value]) => set(name, value)),
    set('TimeZone', 'UTC'),
    'pg_catalog.pg_advisory_unlock_all()',
  ];
  return `SELECT ${settings.join(', ')}`;
}

function timeoutMs(source: Pick<PostgresSourceConfig, 'query_timeout'>): number {
  return Math.max(1, Math.floor(source.query_timeout));
}

/** Every value as PostgreSQL's text output: the same text the store coerces from CSV cells. */
export const RAW_TEXT: pg.CustomTypesConfig = {
  getTypeParser: (() => (value: string) => value) as unknown as pg.CustomTypesConfig['getTypeParser'],
};

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function qualifiedName(table: { schema: string; name: string }): string {
  return `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
}

const CLIENT_TIMEOUT_GRACE_MS = 1000;

/** How long the client waits for a statement before giving up on the connection. */
export function clientTimeoutMs(source: Pick<PostgresSourceConfig, 'query_timeout'>): number {
  return source.query_timeout + CLIENT_TIMEOUT_GRACE_MS;
}

/**
 * Driver settings for one source; the URL is passed on as the driver reads it (driverUrl) and never logged. `clientTimeout: false`
 * leaves out the client-side backstop, for connections whose reads time themselves (live connections).
 */
export function clientConfig(
  url: string,
  source: PostgresSourceConfig,
  options: { clientTimeout?: boolean } = {},
): pg.ClientConfig {
  return {
    connectionString: driverUrl(url),
    connectionTimeoutMillis: source.connect_timeout,
    // Client-side backstop for a server that stops answering (or ignores statement_timeout, as embedded
    // PostgreSQL builds do): the server's own timeout normally fires first.
    ...(options.clientTimeout === false ? {} : { query_timeout: clientTimeoutMs(source) }),
    application_name: 'ambit-relay',
    keepAlive: true,
  };
}

/**
 * - unavailable: no connection, lost connection, server shutting down or refusing (also authentication), a
 *   statement another session cancelled;
 * - timeout: the statement ran past `query_timeout`;
 * - invalid_input: PostgreSQL refused a parameter value for the column's type (a filter value);
 * - failed: anything else the server refused (missing table, permission, read-only violation), data exceptions
 *   raised while a live SELECT ran included (`running`: a value of the table or of what a view computes, which
 *   no filter value of the caller's would avoid).
 */
export type PgErrorKind = 'unavailable' | 'timeout' | 'invalid_input' | 'failed';

interface PgLikeError {
  readonly code?: unknown;
  readonly severity?: unknown;
  readonly message?: unknown;
  readonly running?: unknown;
  /** The server routine that raised it (ErrorResponse field R). */
  readonly routine?: unknown;
  /** A 57014 that came before `query_timeout` could have ended the statement (see noteEarlyCancel). */
  readonly cancelled?: unknown;
}

/** query_canceled: the statement timeout, or a cancel request (an administrator's pg_cancel_backend, a pooler). */
const QUERY_CANCELED = '57014';

/**
 * Marks `error` as a cancel by another session when it is a 57014 that came sooner than `query_timeout` after the
 * statement was sent: the statement timeout, armed once the server started the statement, cannot have ended it
 * yet. The server's message, which says which (`due to user request`), may be translated; the clock is not. Such a
 * read passes when tried again: it is no time-out, to the caller (whose retry is welcome) or to the operator (no
 * query_timeout to raise), and a first load waits it out like a database that is away.
 */
export function noteEarlyCancel(
  error: unknown,
  sentAt: number,
  source: Pick<PostgresSourceConfig, 'query_timeout'>,
): void {
  const { code, severity } = (error ?? {}) as PgLikeError;
  if (code !== QUERY_CANCELED || typeof severity !== 'string' || typeof error !== 'object') return;
  if (performance.now() - sentAt < source.query_timeout) Object.assign(error as object, { cancelled: true });
}

/** A statement another session cancelled (noteEarlyCancel). */
export function isEarlyCancel(error: unknown): boolean {
  return (error as PgLikeError | undefined)?.cancelled === true;
}

export function classifyPgError(error: unknown): PgErrorKind {
  const { code, severity } = (error ?? {}) as PgLikeError;
  const sqlstate = typeof code === 'string' && typeof severity === 'string' ? code : undefined;
  if (sqlstate === undefined) {
    if ((error as PgLikeError | undefined)?.message === CLIENT_TIMEOUT_MESSAGE) return 'timeout';
    // Other errors without a SQLSTATE come from the socket, TLS or the driver: the server was not reached or lost.
    return 'unavailable';
  }
  // 57014: the statement timeout; 55P03: a lock wait the database's own `lock_timeout` ended (the data is held by
  // another session for now, as a migration holds it).
  if (sqlstate === QUERY_CANCELED) return isEarlyCancel(error) ? 'unavailable' : 'timeout';
  if (sqlstate === '55P03') return 'timeout';
  if (
    // 40001 (a standby's conflict with recovery, a serialization failure) and 40P01 (a deadlock) pass when tried
    // again: the source is briefly unavailable rather than refusing the read.
    sqlstate === '40001' ||
    sqlstate === '40P01' ||
    sqlstate.startsWith('08') ||
    sqlstate.startsWith('28') ||
    sqlstate.startsWith('57P') ||
    sqlstate === '53300' ||
    sqlstate === '3D000'
  ) {
    return 'unavailable';
  }
  // 22P05: a parameter holds a character the database's encoding lacks (an emoji against a LATIN1 database).
  if (['22P02', '22007', '22008', '22003', '22021', '22023', '22P05'].includes(sqlstate)) {
    return (error as PgLikeError).running === true ? 'failed' : 'invalid_input';
  }
  return 'failed';
}

// Data exceptions quote the value they refused (`invalid input syntax for type integer: "..."`), and a RAISE in a
// function may say anything: their server messages never reach a load error or a log. A RAISE may name any SQLSTATE
// (`USING ERRCODE = 'XX000'`), so it is also told by the server routine that raised it.
const VALUE_QUOTING_CLASSES = /^(22|P0)/;
const RAISE_ROUTINE = 'exec_stmt_raise';

/** A short reason for logs and load errors: the SQLSTATE and server message, or the socket error code. */
export function describePgError(error: unknown): string {
  const { code, severity, message, routine } = (error ?? {}) as PgLikeError;
  const text = typeof message === 'string' ? message.slice(0, 200) : 'unknown error';
  if (typeof code === 'string' && typeof severity === 'string') {
    return VALUE_QUOTING_CLASSES.test(code) || routine === RAISE_ROUTINE
      ? `SQLSTATE ${code} (its message is left out: it may quote a value)`
      : `SQLSTATE ${code}: ${text}`;
  }
  if (typeof code === 'string') return code;
  // Driver messages ("Connection terminated due to connection timeout") name no host or credential.
  return text;
}
