// How the PostgreSQL state store reads a failure: whether the database is down (requests refused for a second
// before their reads), whether the state schema is gone (migrated again), and the 503 a client is answered, which
// says whether a retry can pass.
import pg from 'pg';
import { isClientTimeout } from '../../platform/postgres/client-timeout.ts';
import { FailureReason } from '../connectors/failure-reason.ts';
import { verifierProblem } from '../problems.ts';
import { errorCode } from './migration-failure-log.ts';

/**
 * Whether a failure says the database cannot be used now, as opposed to one statement failing (a timeout, a
 * constraint): no connection or no answer on it, the server refusing connections (SQLSTATE class 08, shutting down
 * 57P01-57P03, too many connections 53300, the database closed to new sessions 55000, the role no longer let
 * in: class 28), or a database that takes no writes (25006: a demoted primary, a standby), where no
 * evaluation could be kept. The store's own statements raise neither 55000 nor class 28.
 */
export function isOutage(error: unknown): boolean {
  // The driver's own time limit on a statement, which the server's statement_timeout (the same) races: one slow
  // statement, not an outage.
  if (isClientTimeout(error)) return false;
  if (!(error instanceof pg.DatabaseError)) return true;
  const code = error.code ?? '';
  return (
    code.startsWith('08') ||
    code.startsWith('28') ||
    /^57P0[123]$/.test(code) ||
    ['53300', '55000', '25006'].includes(code)
  );
}

/**
 * A state table or the schema is missing (SQLSTATE 42P01, 3F000). Migrating again recreates them when the whole
 * schema is gone; a table dropped or renamed by hand, its migration still recorded, stays missing.
 */
export function isSchemaMissing(error: unknown): boolean {
  return error instanceof pg.DatabaseError && (error.code === '42P01' || error.code === '3F000');
}

/** The migrations are still running (a long one): the store is not usable until they are done. */
export class MigrationRunningError extends Error {
  readonly code = 'migrating';
  constructor() {
    super('the state schema is being migrated');
  }
}

/**
 * Failures only the store's operator can mend: a schema a newer release migrated, a database in an encoding that
 * cannot hold every character, and SQLSTATE class 42, the statements not matching the schema: a role without the
 * rights the store needs (42501), or tables changed by hand (a table dropped with its migration still recorded,
 * 42P01; migration records deleted with the tables left, 42P07). Answered without inviting a retry a second later.
 */
const LASTING_CODES = new Set(['schema_too_new', 'database_encoding']);

function isLasting(code: string): boolean {
  return LASTING_CODES.has(code) || /^42[0-9A-Z]{3}$/.test(code);
}

export function unavailable(error: unknown) {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : 'the state store failed';
  const reason = /timeout/i.test(message) ? 'state.timeout' : `state.${code.toLowerCase()}`;
  if (isLasting(code)) {
    return verifierProblem(
      'state.unavailable',
      'The state store cannot be used as it is set up; a retry would fail again until its operator acts.',
      { cause: new FailureReason(reason, message), extras: { retryable: false } },
    );
  }
  return verifierProblem('state.unavailable', 'The state store is unavailable; retry later.', {
    cause: new FailureReason(reason, message),
    headers: { 'retry-after': '1' },
    extras: { retryable: true },
  });
}
