// The first load of a PostgreSQL table waits for its database instead of failing: the relay starts, `/ready`
// says which table waits and why, and the table loads once the server answers (no restart needed).
import { setTimeout as sleep } from 'node:timers/promises';
import type { SourceError } from '../source-error.ts';
import { isSourceUnavailable } from './postgres-load-error.ts';

export interface WaitForDatabase {
  readonly retryMs: number;
  /** Aborted when the relay closes: the wait ends with the last error. */
  readonly signal: AbortSignal;
  /** Whether a failure should be waited out now (only before the first generation is served). */
  shouldWait(): boolean;
  /** Each attempt that met an unreachable database. */
  onWaiting(error: SourceError): void;
}

/** Runs `load` until it succeeds, fails for another reason, or waiting is no longer wanted. */
export async function retryWhileUnavailable<T>(load: () => Promise<T>, wait: WaitForDatabase): Promise<T> {
  for (;;) {
    try {
      return await load();
    } catch (error) {
      if (!isSourceUnavailable(error) || !wait.shouldWait() || wait.signal.aborted) throw error;
      wait.onWaiting(error as SourceError);
      try {
        await sleep(wait.retryMs, undefined, { signal: wait.signal });
      } catch {
        throw error;
      }
    }
  }
}
