// Something a service depends on (a source, its state store) failing while it runs, in the log: a warning naming
// the reason (a code, never a value, a URL or the other side's text), held back while the same reason repeats
// (failure-log-gate.ts), and one line once it answers again. Without it an outage shows only as problems answered
// to callers and reason codes in the audit trail.
import { createFailureLogGate, type FailureLogGate } from './failure-log-gate.ts';
import type { Logger } from './log.ts';

/** How often one reason is told while it repeats, unless the options say. */
const REPEATED_FAILURE_LOG_MS = 60_000;

export interface OutageLog {
  /** An operation on `key` failed for `reason`: a warning with `fields` (and `message`), unless held back. */
  failed(key: string, reason: string, fields: Record<string, unknown>, message?: string): void;
  /** `key` answered: after failures, one line naming it and how many failed since it last answered. */
  answered(key: string): void;
}

export interface OutageLogOptions {
  readonly failed: string;
  readonly recovered: string;
  /** The field counting the failed operations in the recovery line (`failed_reads`). */
  readonly countField: string;
  /** The fields naming `key` in the recovery line (made only when one is written). */
  readonly fieldsOf: (key: string) => Record<string, unknown>;
  readonly intervalMs?: number;
}

export function createOutageLog(
  logger: Pick<Logger, 'warn' | 'info'> | undefined,
  now: () => number,
  options: OutageLogOptions,
): OutageLog {
  // One entry per key failing now: the keys are the config's (its connections, its one store).
  const failing = new Map<string, { gate: FailureLogGate; count: number }>();
  return {
    failed(key, reason, fields, message = options.failed) {
      if (logger === undefined) return;
      let state = failing.get(key);
      if (state === undefined) {
        state = { gate: createFailureLogGate(options.intervalMs ?? REPEATED_FAILURE_LOG_MS), count: 0 };
        failing.set(key, state);
      }
      state.count++;
      state.gate.warn(logger, reason, now(), fields, message);
    },
    answered(key) {
      // The usual case, nothing failing: one map lookup.
      const state = failing.get(key);
      if (state === undefined || logger === undefined) return;
      failing.delete(key);
      logger.info({ ...options.fieldsOf(key), [options.countField]: state.count }, options.recovered);
    },
  };
}
