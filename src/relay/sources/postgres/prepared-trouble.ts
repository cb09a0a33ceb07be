// How a live read of a prepared statement fails when the statement, not the read, is at fault (a session shared
// through a pooler, or a table changed under the statement): the read is then run again unprepared.
import type { ServerError } from './live-wire.ts';

/** Prepared statement does not exist: the server no longer has one the connection prepared (a pooler). */
export const STATEMENT_MISSING = '26000';
/** Prepared statement already exists: the session is shared with another client (a pooler, an embedded server). */
const STATEMENT_TAKEN = '42P05';
/**
 * How a prepared statement answers once the table's column types changed under it: feature not supported (the
 * result type changed), or, when a parameter's type was fixed by the old column type, a type error of class 42
 * (no such operator, a datatype mismatch, an undeterminable or uncoercible type, an unknown column) that the same
 * text prepared afresh would not raise.
 */
const STATEMENT_STALE = new Set(['0A000', '42883', '42804', '42P18', '42846', '42725', '42703']);

/**
 * Why a read of a prepared statement failed when the statement, not the read, is at fault: 'shared' when the
 * server lost it or already had its name (the session is not the connection's alone: a transaction pooler that
 * does not keep statements), 'stale' when the table changed under it. The same read succeeds unprepared; the
 * connection takes no further read.
 */
export function preparedStatementTrouble(error: unknown): 'shared' | 'stale' | undefined {
  const code = (error as Partial<ServerError> | undefined)?.code;
  if (code === STATEMENT_MISSING || code === STATEMENT_TAKEN) return 'shared';
  if (typeof code === 'string' && STATEMENT_STALE.has(code)) return 'stale';
  return undefined;
}
