// Runs each table's `refresh` mode: `mtime` polls the change token and reloads the table when it moved,
// `interval` reloads it on a period, `manual` waits for the admin listener. Timers never keep the process alive.
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/log.ts';
import type { DatasetConfig, RefreshConfig, RelayConfig, TableConfig } from '../config/schema.ts';
import { POSTGRES_LOAD_CODES } from '../sources/postgres/postgres-load-error.ts';
import { tableKey } from '../store/generation.ts';
import { type ChangeTokenSource, FILE_SETTLE_MS, readChangeToken, unreadableCode } from './change-token.ts';
import type { Reloader, ReloadOutcome } from './reloader.ts';

const MANUAL: RefreshConfig = { mode: 'manual', interval: 60_000 };

/** The code of a change token whose query ran past the source's `query_timeout`. */
const TOKEN_TIMEOUT = POSTGRES_LOAD_CODES.timeout;

/** The table's own `refresh`, else its dataset's `defaults.refresh`, else manual. */
export function refreshOf(dataset: DatasetConfig, table: TableConfig): RefreshConfig {
  return table.refresh ?? dataset.defaults.refresh ?? MANUAL;
}

/** Calls `run` every `ms` until the returned function is called. */
export type Every = (ms: number, run: () => void) => () => void;

/** setInterval that never keeps the process alive. */
export const realEvery: Every = (ms, run) => {
  const timer = setInterval(run, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface RefreshScheduler {
  start(): void;
  /** No further ticks; resolves once the ticks running now are done (their loads end before the sources close). */
  stop(): Promise<void>;
  /** One round of every scheduled table (mtime check or interval reload), resolved when all are done. */
  runOnce(): Promise<void>;
  /**
   * One round of one table, after the one running now: its reload's outcome, or undefined when it reloaded
   * nothing (unchanged, still being written, not scheduled). Under `--workers` the primary runs the rounds, for
   * every worker at once (refresh-rounds.ts), rather than each worker on timers of its own.
   */
  runTable(datasetId: string, tableId: string): Promise<ReloadOutcome | undefined>;
}

export interface RefreshSchedulerOptions {
  readonly config: RelayConfig;
  readonly reloader: Reloader;
  readonly logger: Logger;
  readonly clock: Clock;
  changeToken(datasetId: string, table: TableConfig): ChangeTokenSource | undefined;
  /** For an interval table: a source that can tell it may still be being written (a file), else undefined. */
  settleToken?(datasetId: string, table: TableConfig): ChangeTokenSource | undefined;
  readonly every?: Every;
}

interface Job {
  readonly key: string;
  readonly interval: number;
  /** A timer tick: skipped while the previous one still runs, so a slow load is not stacked on. */
  tick(): void;
  /** Waits for a running tick, then runs once more. */
  runAfterCurrent(): Promise<ReloadOutcome | undefined>;
  /** The tick running now, if any. */
  readonly current: Promise<unknown> | undefined;
}

export function createRefreshScheduler(options: RefreshSchedulerOptions): RefreshScheduler {
  const { reloader, logger, clock } = options;
  const jobs: Job[] = [];
  for (const dataset of options.config.datasets) {
    for (const table of dataset.tables) {
      const refresh = refreshOf(dataset, table);
      if (refresh.mode === 'manual') continue;
      const tokens = refresh.mode === 'mtime' ? options.changeToken(dataset.id, table) : undefined;
      const settle = refresh.mode === 'interval' ? options.settleToken?.(dataset.id, table) : undefined;
      // The token read at the previous poll: a source still being written reloads once it holds still.
      let polled: string | undefined;
      // The token read at the previous interval tick, and for how many ticks since it has not changed.
      let ticked: { token: string | undefined; still: number } = { token: undefined, still: 0 };
      const settleTicks = Math.ceil(FILE_SETTLE_MS / refresh.interval);
      const step = async (): Promise<ReloadOutcome | undefined> => {
        // Loads begun after this (another table's round of the same file, an admin reload) read the source as new.
        const since = reloader.readMark();
        // The token this poll found: the reload, queued behind another load of the table, skips when that load
        // read it too.
        let seen: { token: string; readAt: number } | undefined;
        if (refresh.mode === 'mtime') {
          const readAt = clock.now();
          const token = tokens === undefined ? undefined : await readChangeToken(tokens);
          if (token !== undefined) seen = { token, readAt };
          const previous = polled;
          polled = token;
          // Once recorded, an unreadable token stops further reloads: the source's changes go unseen until it
          // reads again, so say so (once, not at every poll).
          const unreadable = token === undefined ? undefined : unreadableCode(token);
          // A token query that ran into its timeout (a lock a migration holds, say) says nothing about the data,
          // and a load would likely wait on the same lock: the round ends here, and the next poll asks again.
          if (unreadable === TOKEN_TIMEOUT) {
            logger[token === previous ? 'debug' : 'warn'](
              { dataset_id: dataset.id, table_id: table.id, err_code: unreadable },
              'change token timed out: this refresh round reloads nothing, the next poll reads it again',
            );
            return undefined;
          }
          if (unreadable !== undefined && token !== previous) {
            logger.warn(
              { dataset_id: dataset.id, table_id: table.id, err_code: unreadable },
              'change token unreadable: once a load succeeds, changes to this source go unseen until the token reads again',
            );
          } else if (
            unreadable === undefined &&
            previous !== undefined &&
            unreadableCode(previous) !== undefined
          ) {
            logger.info(
              { dataset_id: dataset.id, table_id: table.id },
              'change token readable again: changes to this source are seen',
            );
          }
          if (token !== undefined && reloader.confirmUnchanged(dataset.id, table.id, token, readAt))
            return undefined;
          if (token !== undefined && token !== previous && tokens?.settling?.(token)) {
            logger.debug(
              { dataset_id: dataset.id, table_id: table.id },
              'source changing: reload at the next poll',
            );
            return undefined;
          }
        }
        // A file modified moments ago may still be being written (a CSV cut off mid-row still parses): an interval
        // reload waits for the next tick rather than serve it. One that held still for as many ticks as that takes
        // is read all the same: a modification time in the future (a copy that kept the times of a machine whose
        // clock is ahead, a clock set back) would otherwise look recent, and go unread, for hours.
        if (settle?.settling !== undefined) {
          const token = await readChangeToken(settle);
          ticked = token === ticked.token ? { token, still: ticked.still + 1 } : { token, still: 0 };
          if (unreadableCode(token) === undefined && ticked.still < settleTicks && settle.settling(token)) {
            logger.debug(
              { dataset_id: dataset.id, table_id: table.id },
              'source changing: reload at the next interval',
            );
            return undefined;
          }
        }
        return reloader.reloadTable(dataset.id, table.id, refresh.mode as 'mtime' | 'interval', seen, since);
      };
      let running: Promise<ReloadOutcome | undefined> | undefined;
      const run = (): Promise<ReloadOutcome | undefined> => {
        const current = step()
          .catch((error: unknown) => {
            logger.error({ dataset_id: dataset.id, table_id: table.id, err: error }, 'refresh failed');
            return undefined;
          })
          .finally(() => {
            if (running === current) running = undefined;
          });
        running = current;
        return current;
      };
      jobs.push({
        key: tableKey(dataset.id, table.id),
        interval: refresh.interval,
        tick() {
          if (running === undefined) void run();
        },
        async runAfterCurrent() {
          await running;
          return run();
        },
        get current() {
          return running;
        },
      });
    }
  }

  const every = options.every ?? realEvery;
  let cancels: (() => void)[] = [];
  return {
    start() {
      if (cancels.length > 0) return;
      cancels = jobs.map((job) => every(job.interval, () => job.tick()));
    },
    async stop() {
      for (const cancel of cancels) cancel();
      cancels = [];
      await Promise.all(jobs.map((job) => job.current));
    },
    async runOnce() {
      await Promise.all(jobs.map((job) => job.runAfterCurrent()));
    },
    async runTable(datasetId, tableId) {
      return jobs.find((job) => job.key === tableKey(datasetId, tableId))?.runAfterCurrent();
    },
  };
}
