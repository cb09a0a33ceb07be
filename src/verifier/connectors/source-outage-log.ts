// A source that stops answering, in the log: otherwise an outage (the relay down, its token revoked, a proxy
// answering in its place) shows only as 503s to callers and reason codes in the audit trail. Per connection, a
// warning names the reason (a code, never a value, a URL or the source's text), held back while the same reason
// repeats (platform/failure-log-gate.ts); the first read the source answers after that is told too.
import { createFailureLogGate, type FailureLogGate } from '../../platform/failure-log-gate.ts';
import type { Logger } from '../../platform/log.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import { auditCodeOf } from './failure-reason.ts';

/** How often one reason is told while it repeats. */
const REPEATED_FAILURE_LOG_MS = 60_000;

export interface SourceOutageLog {
  /** A read of `connection` failed with `error`: told when it says the source failed (not the caller). */
  failed(connection: string, error: unknown): void;
  /** The source of `connection` answered a read. */
  answered(connection: string): void;
}

interface ConnectionState {
  gate: FailureLogGate;
  /** Reads failed since the source last answered. */
  failedReads: number;
}

export function createSourceOutageLog(logger: Logger | undefined, now: () => number): SourceOutageLog {
  // One entry per configured connection at most: the connections a claim binds are the config's.
  const states = new Map<string, ConnectionState>();
  return {
    failed(connection, error) {
      if (logger === undefined || !isSourceFailure(error)) return;
      let state = states.get(connection);
      if (state === undefined) {
        state = { gate: createFailureLogGate(REPEATED_FAILURE_LOG_MS), failedReads: 0 };
        states.set(connection, state);
      }
      state.failedReads++;
      const reason = auditCodeOf(error) ?? 'source.unavailable';
      state.gate.warn(logger, reason, now(), { connection, reason }, 'source read failed');
    },
    answered(connection) {
      // The usual case, a source that never failed: one map lookup.
      const state = states.get(connection);
      if (state === undefined || logger === undefined) return;
      states.delete(connection);
      logger.info({ connection, failed_reads: state.failedReads }, 'source answering again');
    },
  };
}

/** The source is unavailable or did not answer in time: not a record missing, nor the request's own time out. */
function isSourceFailure(error: unknown): boolean {
  if (!isProblem(error)) return false;
  return error.code === 'source.unavailable' || auditCodeOf(error) === 'source.timeout';
}
