// How long the primary waits before starting a worker again.

/** A dead worker is started again after 1s; one that fails to start, or dies soon after, after 2s, 4s, ... 30s. */
const RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;

/** 1s, 2s, 4s, ... at most 30s. */
export function restartDelay(attempt: number): number {
  return Math.min(RESTART_DELAY_MS * 2 ** (attempt - 1), MAX_RESTART_DELAY_MS);
}

/**
 * A worker that dies sooner than this after it started counts as one more failed attempt, so a worker that crashes
 * on every start (a request or a table it cannot handle) does not cost a full load of the data every second.
 */
export const STABLE_RUN_MS = 60_000;
