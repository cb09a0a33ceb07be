// A warning held back while it repeats: a database away makes every live read, every wait for a first load and
// every state-store migration attempt fail for the same reason, and a line per attempt would flood the log. The
// same reason is written at most once an interval, saying how many were left out since; a new reason at once.
import type { Logger } from './log.ts';

export interface FailureLogGate {
  /**
   * Logs the warning `message` with `fields` for a failure for `reason` at `now`, unless it is held back; a line
   * written after some were held back says how many in `suppressed`.
   */
  warn(
    logger: Pick<Logger, 'warn'>,
    reason: string,
    now: number,
    fields: Record<string, unknown>,
    message: string,
  ): void;
}

/** A failure with the reason of the last one logged, less than `intervalMs` after it, is counted, not logged. */
export function createFailureLogGate(intervalMs: number): FailureLogGate {
  let lastReason: string | undefined;
  let lastAt = 0;
  let suppressed = 0;
  return {
    warn(logger, reason, now, fields, message) {
      const elapsed = now - lastAt;
      // A clock stepped back (a negative interval) does not hold the next line back.
      if (reason === lastReason && elapsed >= 0 && elapsed < intervalMs) {
        suppressed += 1;
        return;
      }
      const left = suppressed;
      lastReason = reason;
      lastAt = now;
      suppressed = 0;
      logger.warn(left > 0 ? { ...fields, suppressed: left } : fields, message);
    },
  };
}
