// The first load of a PostgreSQL table waits for its database instead of failing: the relay starts, `/ready`
// says which table waits and why, and the table loads once the server answers (no restart needed).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../../platform/clock.ts';
import { createFailureLogGate, type FailureLogGate } from '../../../platform/failure-log-gate.ts';
import type { Logger } from '../../../platform/log.ts';
import type { SourceError } from '../source-error.ts';
import { isSourceUnavailable } from './postgres-load-error.ts';

/** How long the same reason for a table's wait goes unrepeated in the log. */
export const WAITING_LOG_MS = 60_000;

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

/**
 * The warning of a table whose first load waits for its database. A database away for hours would otherwise write
 * a line per table at every attempt: the same reason is written at most once a minute, saying in `suppressed` how
 * many attempts were left out since the line before; a new reason is written at once.
 */
export function waitingLog(
  logger: Logger,
  clock: Clock,
): (datasetId: string, tableId: string, error: SourceError) => void {
  const gates = new Map<string, FailureLogGate>();
  return (datasetId, tableId, error) => {
    const table = JSON.stringify([datasetId, tableId]);
    let gate = gates.get(table);
    if (!gate) {
      gate = createFailureLogGate(WAITING_LOG_MS);
      gates.set(table, gate);
    }
    const fields = {
      dataset_id: datasetId,
      table_id: tableId,
      err_code: error.code,
      err_message: error.message,
    };
    gate.warn(
      logger,
      `${error.code}\n${error.message}`,
      clock.now(),
      fields,
      'waiting for the database of a table',
    );
  };
}
