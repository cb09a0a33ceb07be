// Failed audit writes, for every chain writer: what the callers report under each write policy, and one log line
// at the start of a streak of failures (a full disk, a removed folder) and one at its end.
import type { Logger } from '../log.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';

export type AuditWritePolicy = 'fail_closed' | 'availability_first';

export interface WriteFailures {
  /**
   * Counts `records` that could not be written, logging the first failure of a streak. Returns what their callers
   * report: the `audit.write_failed` problem under `fail_closed`, undefined under `availability_first`.
   */
  failed(error: unknown, records: number): unknown;
  /** A write succeeded: ends a streak of failures, if any, with one log line. */
  succeeded(): void;
}

const defaultWriteFailed = (cause: unknown) =>
  platformProblem('audit.write_failed', 'The audit record could not be written.', { cause });

export function trackWriteFailures(
  logger: Logger,
  writePolicy: AuditWritePolicy,
  writeFailed: (cause: unknown) => Problem = defaultWriteFailed,
): WriteFailures {
  let failedWrites = 0;
  return {
    failed(error, records) {
      if (failedWrites === 0) {
        // The record itself is never logged: it is exactly what could not be stored safely.
        logger.error(
          { err_code: errorCode(error), err_message: errorMessage(error), write_policy: writePolicy },
          'audit write failed',
        );
      }
      failedWrites += records;
      return writePolicy === 'fail_closed' ? writeFailed(error) : undefined;
    },
    succeeded() {
      if (failedWrites === 0) return;
      logger.warn({ failed_writes: failedWrites, write_policy: writePolicy }, 'audit writes recovered');
      failedWrites = 0;
    },
  };
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Tells each waiter of a batch its outcome. Each sends its request's response: one that throws must neither keep
 * the others from theirs nor escape (from an immediate, that would end the process).
 */
export function answerAll(
  logger: Logger,
  callbacks: readonly ((error?: unknown) => void)[],
  failure: unknown,
): void {
  for (const callback of callbacks) {
    try {
      callback(failure);
    } catch (error) {
      logger.error({ err_message: errorMessage(error) }, 'sending a response after its audit record failed');
    }
  }
}
