// Logs failed reloads per table: a refresh that meets the same failure at every poll (a deleted file, a database
// away) logs it once at error, the repeats at debug, and the first reload that succeeds again says how long it was.
import type { Logger } from '../../platform/log.ts';
import type { TableConfig } from '../config/schema.ts';
import type { LoadTrigger } from '../metrics/relay-metrics.ts';
import { codeOf, whereOf } from './reload-failure-details.ts';

export interface FailedTable {
  readonly datasetId: string;
  readonly table: TableConfig;
  readonly key: string;
}

export interface ReloadFailureLog {
  failed(
    ref: FailedTable,
    error: unknown,
    scope: 'all' | 'table',
    trigger: LoadTrigger,
    generation: string | undefined,
  ): void;
  /** Ends the table's run of failed reloads, if any. */
  recovered(ref: FailedTable, trigger: LoadTrigger): void;
}

export function createReloadFailureLog(logger: Logger): ReloadFailureLog {
  // The last code of each failing table, and how many reloads failed in a row.
  const failing = new Map<string, { code: string; failures: number }>();
  return {
    failed(ref, error, scope, trigger, generation) {
      const code = codeOf(error);
      const previous = failing.get(ref.key);
      failing.set(ref.key, { code, failures: (previous?.failures ?? 0) + 1 });
      // The same failure again, met by a refresh rather than asked for, is no news.
      const repeat = previous?.code === code && trigger !== 'admin';
      logger[repeat ? 'debug' : 'error'](
        {
          scope,
          trigger,
          dataset_id: ref.datasetId,
          table_id: ref.table.id,
          err_code: code,
          ...whereOf(error),
        },
        generation === undefined
          ? 'reload failed: nothing is served yet (the first load failed too)'
          : ref.table.materialization === 'live'
            ? 'reload failed: live reads continue against the database'
            : 'reload failed: the previous data is still served',
      );
    },
    recovered(ref, trigger) {
      const streak = failing.get(ref.key);
      if (streak === undefined) return;
      failing.delete(ref.key);
      logger.info(
        { trigger, dataset_id: ref.datasetId, table_id: ref.table.id, failed_reloads: streak.failures },
        'reload recovered',
      );
    },
  };
}
