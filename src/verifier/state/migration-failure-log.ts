// The log of the state store's migration attempts. They are retried each second while probes and requests come
// (a readiness probe alone tries them every few seconds), and a failure that needs the operator (a schema of a
// later version, a role without the right to alter a table) repeats until they act: written each time, it would
// bury everything else in the log. So a failure is written once, then at most once a minute while it repeats,
// saying in `suppressed` how many attempts were left out since the line before (as the relay's `live read failed`
// does); a different failure is written at once, and so is the recovery.
import type { Clock } from '../../platform/clock.ts';
import { createFailureLogGate } from '../../platform/failure-log-gate.ts';
import type { Logger } from '../../platform/log.ts';

/** How long the same failure goes unrepeated in the log. */
export const REPEATED_FAILURE_LOG_MS = 60_000;

export interface MigrationFailureLog {
  failed(error: unknown): void;
  /** The migrations were applied (or found applied): the failures, if any, are over. */
  succeeded(): void;
}

export function migrationFailureLog(clock: Clock, logger: Logger): MigrationFailureLog {
  // Attempts failed since the last success; a recovery starts the gate afresh.
  let gate = createFailureLogGate(REPEATED_FAILURE_LOG_MS);
  let failedAttempts = 0;
  return {
    failed(error) {
      failedAttempts++;
      const fields = { err_code: errorCode(error), detail: migrationFailureDetail(error) };
      const reason = `${fields.err_code}\n${fields.detail}`;
      gate.warn(logger, reason, clock.now(), fields, 'state store unavailable: migrations not applied');
    },
    succeeded() {
      if (failedAttempts === 0) return;
      logger.info({ failed_attempts: failedAttempts }, 'state store available: migrations applied');
      gate = createFailureLogGate(REPEATED_FAILURE_LOG_MS);
      failedAttempts = 0;
    },
  };
}

export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
}

/** What the operator reads in the log when the migrations fail, with the remedy where there is one. */
function migrationFailureDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return errorCode(error) === '42501'
    ? `${message}: this role may not change the state schema; start this version once with the owner's URL`
    : message;
}
