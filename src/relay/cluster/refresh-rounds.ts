// Under `--workers` the primary runs each table's refresh rounds (`refresh.interval` apart) for every worker at
// once. Each worker still reads the change token and the source itself, but all of them at the same moment: a
// change is loaded by every worker in one round. On timers of their own (workers start at different moments, and a
// worker started again starts its timers anew) they polled out of step, and served different data, so that a walk
// through pages could meet `pagination.cursor_invalidated`, for up to an interval.
import type { Logger } from '../../platform/log.ts';
import type { RelayConfig } from '../config/schema.ts';
import { type Every, realEvery, refreshOf } from '../reload/refresh-scheduler.ts';
import type { ReloadOutcome } from '../reload/reloader.ts';

export interface RefreshRoundsOptions<W> {
  readonly config: RelayConfig;
  readonly logger: Logger;
  /** The workers serving now: one loading (started again) reads the sources as they are once it has loaded. */
  workers(): readonly W[];
  /** One round of the table in one worker. */
  refresh(worker: W, datasetId: string, tableId: string): Promise<RefreshAnswer>;
  readonly every?: Every;
}

/** A worker's round: its reload's outcome (null when it reloaded nothing), and the version it serves after it. */
export interface RefreshAnswer {
  readonly outcome: ReloadOutcome | null;
  readonly version: string | null;
}

export interface RefreshRounds {
  /** No further rounds; resolves once the rounds running now are over. */
  stop(): Promise<void>;
}

export function startRefreshRounds<W>(options: RefreshRoundsOptions<W>): RefreshRounds {
  const every = options.every ?? realEvery;
  const cancels: (() => void)[] = [];
  const running = new Set<Promise<void>>();
  for (const dataset of options.config.datasets) {
    for (const table of dataset.tables) {
      const refresh = refreshOf(dataset, table);
      if (refresh.mode === 'manual') continue;
      const ids = { dataset_id: dataset.id, table_id: table.id };
      let current: Promise<void> | undefined;
      const round = async (): Promise<void> => {
        const workers = options.workers();
        const answers = await Promise.allSettled(
          workers.map((worker) => options.refresh(worker, dataset.id, table.id)),
        );
        const answered = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []));
        const changed = answered.filter((answer) => answer.outcome?.changed === true).length;
        if (changed === 0) return;
        // Said to serve the change everywhere only when every worker answered with the same version: a worker that
        // read the source just before it changed (or still found it being written) loads it at the next round.
        const served = new Set(answered.map((answer) => answer.version));
        const fields = { ...ids, trigger: refresh.mode, processes: workers.length, changed };
        if (served.size === 1 && answered.length === workers.length) {
          options.logger.info(fields, 'refresh reloaded the table in every relay process');
        } else {
          options.logger.warn(
            fields,
            'relay processes serve different data after a refresh (or did not answer); the next round reloads them',
          );
        }
      };
      cancels.push(
        every(refresh.interval, () => {
          // A round still running (a slow load) is not stacked on.
          if (current !== undefined) return;
          const started = round()
            .catch((error: unknown) =>
              options.logger.error(
                { ...ids, err_message: error instanceof Error ? error.message : String(error) },
                'refresh round failed',
              ),
            )
            .finally(() => {
              running.delete(started);
              current = undefined;
            });
          current = started;
          running.add(started);
        }),
      );
    }
  }
  return {
    async stop() {
      for (const cancel of cancels.splice(0)) cancel();
      await Promise.all(running);
    },
  };
}
