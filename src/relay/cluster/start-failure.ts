// A worker's failed start, carried to the primary and made an error again there: the primary reports it (the
// first start) exactly as a single process reports the same error, with the same message and exit status.
import { ConfigError } from '../../platform/config/config-error.ts';
import { SourceError } from '../sources/source-error.ts';
import type { StartFailure } from './cluster-messages.ts';

/** What the primary needs of a worker's start error: its message, and the fields its kind is reported by. */
export function describeStartFailure(error: unknown): StartFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof SourceError) {
    const { tableId, code, detail, row, column, cell } = error;
    return { message, source: { tableId, code, detail, row, column, cell } };
  }
  if (error instanceof ConfigError) return { message, config: error.issues };
  return { message, ...listenDetails(error) };
}

/** The worker's error as the primary throws it: of the same kind, with the same fields, as in the worker. */
export function startFailureError(failure: StartFailure): Error {
  if (failure.source !== undefined) return new SourceError(failure.source);
  if (failure.config !== undefined) return new ConfigError(failure.config);
  // A listen error is recognised by its fields (listen-error.ts), whatever its class.
  return Object.assign(new Error(failure.message), failure.listen);
}

/** A failed listen's code, syscall, address and port, which the report names. */
function listenDetails(error: unknown): Pick<StartFailure, 'listen'> {
  const { code, syscall, address, port } = (error ?? {}) as Record<string, unknown>;
  if (typeof syscall !== 'string' || typeof address !== 'string' || typeof port !== 'number') return {};
  return { listen: { ...(typeof code === 'string' ? { code } : {}), syscall, address, port } };
}

/** A worker that ended while starting, with no word of why: its exit status, or the signal (out of memory: SIGKILL). */
export function endedWhileStarting(index: number, code: number | null, signal: string | null): Error {
  const how = signal === null ? `exited with status ${code}` : `was killed by ${signal}`;
  return new Error(`worker ${index} ${how} while starting`);
}
