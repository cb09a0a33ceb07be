// The problems a live read answers with: the database's failures by class, and a row that does not fit the declared
// schema (LiveRowInvalid, thrown by a row renderer). Details name no host, table, SQL or value.
import { relayProblem } from '../../problems.ts';
import { classifyPgError, isEarlyCancel } from './read-only-session.ts';

/**
 * lock_not_available: the wait for a lock ended by the database's own `lock_timeout` (set on the role or database
 * so that readers do not queue behind a migration's lock), before `query_timeout` could end it.
 */
const LOCK_TIMEOUT = '55P03';

function isLockTimeout(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return code === LOCK_TIMEOUT && typeof severity === 'string';
}

/** A value read that does not fit the declared schema. Names the field and the column, never the value. */
export class LiveRowInvalid extends Error {
  readonly field: string;
  readonly column: string;
  /** What is wrong, without the value (`not a valid integer`). */
  readonly reason: string;

  constructor(field: string, column: string, reason: string) {
    super(`a value of field \`${field}\` read from the database is ${reason}`);
    this.name = 'LiveRowInvalid';
    this.field = field;
    this.column = column;
    this.reason = reason;
  }
}

/** The problem a failed live read answers with; details name no host, table or SQL. */
export function readProblem(error: unknown) {
  switch (classifyPgError(error)) {
    case 'unavailable':
      return relayProblem(
        'datasource.unavailable',
        isEarlyCancel(error)
          ? 'the database cancelled the read at the request of another of its sessions; retry later'
          : 'the database behind this entity cannot be reached; retry later',
        {
          headers: { 'retry-after': '5' },
        },
      );
    case 'timeout':
      return relayProblem(
        'datasource.timeout',
        isLockTimeout(error)
          ? 'the database gave up waiting for a lock on the data (its lock_timeout); retry later'
          : 'the database did not answer within the query timeout',
      );
    case 'invalid_input':
      return relayProblem('filter.invalid_value', 'a filter value is not valid for the column it filters');
    case 'failed':
      return relayProblem('datasource.query_failed', 'the database refused the read');
  }
}
