// A warning held back while it repeats: a database away makes every live read, every wait for a first load and
// every state-store migration attempt fail for the same reason, and a line per attempt would flood the log. The
// same reason is written at most once an interval, saying how many were left out since; a new reason at once.

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

/** A failure with the reason of the last one logged, less than `intervalMs` after it, is counted, not logged. */
export function createFailureLogGate(intervalMs: number): FailureLogGate {
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
