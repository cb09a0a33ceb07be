// Turns a driver or server error met while loading, probing or polling a PostgreSQL table into a SourceError.
import { SourceError } from '../source-error.ts';
import { CopyDecodeError } from './copy-out.ts';
import { classifyPgError, describePgError } from './read-only-session.ts';

/** The load error codes of PostgreSQL sources; `ingest.source_unavailable` is the one retried at startup. */
export const POSTGRES_LOAD_CODES = {
  unavailable: 'ingest.source_unavailable',
  timeout: 'ingest.query_timeout',
  failed: 'ingest.query_failed',
} as const;

export function postgresLoadError(tableId: string, error: unknown): SourceError {
  if (error instanceof SourceError) return error;
  if (error instanceof CopyDecodeError) {
    return new SourceError({
      tableId,
      code: 'ingest.load_failed',
      detail: `a row PostgreSQL sent could not be decoded (${describePgError(error.cause)})`,
      cause: error,
    });
  }
  const kind = classifyPgError(error);
  const reason = describePgError(error);
  if (kind === 'unavailable') {
    return new SourceError({
      tableId,
      code: POSTGRES_LOAD_CODES.unavailable,
      detail: `PostgreSQL cannot be reached (${reason})`,
      cause: error,
    });
  }
  if (kind === 'timeout') {
    return new SourceError({
      tableId,
      code: POSTGRES_LOAD_CODES.timeout,
      detail: `a statement ran longer than source.query_timeout (${reason})`,
      cause: error,
    });
  }
  return new SourceError({
    tableId,
    code: POSTGRES_LOAD_CODES.failed,
    detail: `PostgreSQL refused the read (${reason})`,
    cause: error,
  });
}

/** True for the failures that end when the database comes back, so a first load waits for them. */
export function isSourceUnavailable(error: unknown): boolean {
  return error instanceof SourceError && error.code === POSTGRES_LOAD_CODES.unavailable;
}
