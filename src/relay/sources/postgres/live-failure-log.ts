// The warning of a failed live read, held back when it repeats: while a database is away every read of its table
// fails for the same reason, and a line per read would flood the log at the request rate. The metrics still count
// each failure.

/** A failure with the reason of the last one logged, this soon after it, is counted rather than logged. */
export const REPEATED_FAILURE_LOG_MS = 10_000;

export interface FailureLogGate {
  /**
   * Whether a failure for `reason` at `now` is to be logged; when it is, `suppressed` is the number of failures
   * left out since the previous line.
   */
  admit(
    reason: string,
    now: number,
  ): { readonly log: true; readonly suppressed: number } | { readonly log: false };
}

export function createFailureLogGate(intervalMs = REPEATED_FAILURE_LOG_MS): FailureLogGate {
  let lastReason: string | undefined;
  let lastAt = 0;
  let suppressed = 0;
  return {
    admit(reason, now) {
      const elapsed = now - lastAt;
      // A clock stepped back (a negative interval) does not hold the next line back.
      if (reason === lastReason && elapsed >= 0 && elapsed < intervalMs) {
        suppressed += 1;
        return { log: false };
      }
      const left = suppressed;
      lastReason = reason;
      lastAt = now;
      suppressed = 0;
      return { log: true, suppressed: left };
    },
  };
}
