// Loads and reloads the data generation. A reload builds the new snapshots beside the ones being served and
// swaps the generation in one assignment, so a request sees either the old data or the new, never a mix. A
// reload that fails swaps nothing: the previous generation keeps being served and the failure is reported.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/log.ts';
import type { RelayConfig, TableConfig } from '../config/schema.ts';
import type { LoadTrigger, RelayMetrics } from '../metrics/relay-metrics.ts';
import type { RelayState } from '../relay-state.ts';
import { tableKey } from '../store/generation.ts';
import { assembleGeneration } from '../store/load-generation.ts';
import type { TableSnapshot } from '../store/table-snapshot.ts';
import { type ChangeTokenSource, readChangeToken, unreadableCode } from './change-token.ts';
import { codeOf } from './reload-failure-details.ts';
import { createReloadFailureLog } from './reload-failure-log.ts';
import type { ReloadFailure, ReloadOutcome, TableVersion } from './reload-outcome.ts';
import { refreshGroups, refuseMixedReads, sharedFileWatcher } from './shared-file-tables.ts';

export type { ReloadFailure, ReloadOutcome, TableVersion, TableWaiting } from './reload-outcome.ts';

export interface Reloader {
  /** The startup load: rejects with the first table's failure. */
  load(): Promise<void>;
  /** True until the startup load is over, loaded or failed: reloads are refused meanwhile. */
  isStarting(): boolean;
  /** Every table, as one new generation: all swap in together or none does. */
  reloadAll(trigger: LoadTrigger): Promise<ReloadOutcome>;
  /**
   * One table; the others keep their snapshots. `seen` is the change token an mtime poll read (at `readAt`): when
   * a load that ran while this one waited its turn read that same token, nothing is loaded again. `since` is a
   * `readMark()` taken when the refresh round began: when every table the refresh would load was read since, by
   * loads that succeeded, nothing is loaded again either.
   */
  reloadTable(
    datasetId: string,
    tableId: string,
    trigger: LoadTrigger,
    seen?: { readonly token: string; readonly readAt: number },
    since?: number,
  ): Promise<ReloadOutcome>;
  /** Counts the loads begun so far: a load with a higher mark read its source after this one was taken. */
  readMark(): number;
  hasTable(datasetId: string, tableId: string): boolean;
  /**
   * Whether `token`, read at `readAt` (epoch ms), is the one read just before the table's last successful load:
   * the data served still matches its source, which the table's "current" time then says.
   */
  confirmUnchanged(datasetId: string, tableId: string, token: string, readAt: number): boolean;
}

export interface ReloaderOptions {
  readonly config: RelayConfig;
  readonly state: RelayState;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: RelayMetrics;
  loadTable(datasetId: string, table: TableConfig): Promise<TableSnapshot>;
  /**
   * Called before every table reloads as one generation (PostgreSQL's shared moments), `end` once all loads ended.
   * Not at start: its loads wait for a database that is away, and would hold the others' moments meanwhile.
   */
  beginGeneration?(): Promise<{ end(): Promise<void> }>;
  /** The table's change token source when its refresh mode needs one. */
  changeToken(datasetId: string, table: TableConfig): ChangeTokenSource | undefined;
  /** The token of a file table's file, whatever its refresh: tables read from one file must read one version. */
  fileToken?(datasetId: string, table: TableConfig): ChangeTokenSource | undefined;
}

interface TableRef {
  readonly datasetId: string;
  readonly table: TableConfig;
  readonly key: string;
  readonly tokens: ChangeTokenSource | undefined;
}

type Loaded =
  | { ok: true; ref: TableRef; snapshot: TableSnapshot; readAt: number; mark: number }
  | { ok: false; ref: TableRef; error: unknown };

export function createReloader(options: ReloaderOptions): Reloader {
  const { state, logger, metrics } = options;
  const refs = new Map<string, TableRef>();
  for (const dataset of options.config.datasets) {
    for (const table of dataset.tables) {
      const key = tableKey(dataset.id, table.id);
      refs.set(key, { datasetId: dataset.id, table, key, tokens: options.changeToken(dataset.id, table) });
    }
  }
  const groups = refreshGroups(options.config);
  const watchFiles = sharedFileWatcher(options.config, options.fileToken);
  const tokens = new Map<string, string>();
  // The loads begun so far, and for each table the mark of its last load that succeeded.
  let marks = 0;
  const readMarks = new Map<string, number>();
  const failures = createReloadFailureLog(logger);
  let starting = true;

  // One load at a time: a reload always starts from the generation the previous one left behind.
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(job: () => Promise<T>): Promise<T> => {
    const run = tail.then(job);
    tail = run.catch(() => {});
    return run;
  };

  /** The table's change token and when it was read: before its data, so a change made meanwhile is seen later. */
  async function readToken(ref: TableRef): Promise<{ readAt: number; token: string | undefined }> {
    const readAt = options.clock.now();
    return { readAt, token: ref.tokens === undefined ? undefined : await readChangeToken(ref.tokens) };
  }

  async function loadOne(
    ref: TableRef,
    read?: { readAt: number; token: string | undefined },
  ): Promise<Loaded & { token?: string }> {
    const { readAt, token } = read ?? (await readToken(ref));
    const started = performance.now();
    const mark = ++marks;
    try {
      const snapshot = await options.loadTable(ref.datasetId, ref.table);
      metrics.table(ref.datasetId, ref.table.id).recordLoad('ok', performance.now() - started);
      return { ok: true, ref, snapshot, readAt, mark, ...(token === undefined ? {} : { token }) };
    } catch (error) {
      metrics.table(ref.datasetId, ref.table.id).recordLoad('failed', performance.now() - started);
      return { ok: false, ref, error };
    }
  }

  /**
   * Builds, on each new snapshot, the indexes the snapshot it replaces had built, in slices between which reads go
   * on: the first reads after the swap would otherwise each build one at once (a second or so for a million rows).
   */
  async function prepareIndexes(loaded: readonly Loaded[]): Promise<void> {
    for (const result of loaded) {
      if (!result.ok) continue;
      const served = state.generation?.tables.get(result.ref.key);
      if (served === undefined || served.version === result.snapshot.version) continue;
      await result.snapshot.prepareIndexes(served.indexedColumns());
    }
  }

  /**
   * Swaps in a generation made of `current` with `loaded` replacing their tables; keeps it when nothing changed.
   * Returns whether anything changed.
   */
  function swap(loaded: readonly (Loaded & { token?: string })[]): boolean {
    const tables = new Map(state.generation?.tables ?? []);
    let changed = state.generation === undefined;
    for (const result of loaded) {
      if (!result.ok) continue;
      if (result.token !== undefined) tokens.set(result.ref.key, result.token);
      readMarks.set(result.ref.key, result.mark);
      // A live table's snapshot is empty (reads go to the database): it has no row count to report.
      if (result.ref.table.materialization !== 'live') {
        const table = metrics.table(result.ref.datasetId, result.ref.table.id);
        table.recordServed(result.snapshot.rowCount);
        table.recordCurrent(result.readAt);
      }
      // Equal versions mean equal data: the snapshot served stays, and with it the time aggregates say it is of.
      if (tables.get(result.ref.key)?.version === result.snapshot.version) continue;
      changed = true;
      tables.set(result.ref.key, result.snapshot);
    }
    // Nothing changed: the current generation (and its caches and cursors) stays.
    if (changed) state.generation = assembleGeneration(tables, options.clock.now());
    // A generation holds every table: readiness counts describe it, whatever an earlier load left there.
    state.readiness.loaded = state.readiness.total;
    state.readiness.failed = 0;
    return changed;
  }

  function outcome(
    loaded: readonly Loaded[],
    scope: 'all' | 'table',
    trigger: LoadTrigger,
    changed: boolean,
  ): ReloadOutcome {
    const failed = loaded.filter((result) => !result.ok).map((result) => failureOf(result));
    const ok = failed.length === 0;
    metrics.recordReload(scope, trigger, ok ? 'ok' : 'failed');
    const generation = state.generation?.version;
    if (ok) {
      for (const result of loaded) failures.recovered(result.ref, trigger);
      // A refresh that found nothing new is routine; one an operator asked for is answered either way.
      const level = changed || trigger === 'admin' ? 'info' : 'debug';
      logger[level]({ scope, trigger, tables: loaded.length, generation, changed }, 'reload applied');
    } else {
      for (const result of loaded) {
        if (!result.ok) failures.failed(result.ref, result.error, scope, trigger, generation);
      }
    }
    return {
      ok,
      counts: { total: loaded.length, succeeded: loaded.length - failed.length, failed: failed.length },
      failures: failed,
      generation,
      ...(changed ? { changed: true as const } : {}),
      ...(ok ? { versions: loaded.map((result) => versionServed(result.ref)) } : {}),
    };
  }

  /**
   * Every table's change token. Read before the generation's moment begins: the data is read at that moment, and a
   * token read later could name a change the data lacks, which every later poll would then skip.
   */
  function readTokens(): Promise<{ ref: TableRef; read: Awaited<ReturnType<typeof readToken>> }[]> {
    return Promise.all([...refs.values()].map(async (ref) => ({ ref, read: await readToken(ref) })));
  }

  async function reloadEverything(
    trigger: LoadTrigger,
    read?: Awaited<ReturnType<typeof readTokens>>,
  ): Promise<ReloadOutcome> {
    const reads = read ?? (await readTokens());
    const changedFiles = await watchFiles([...refs.keys()]);
    const generation = await options.beginGeneration?.();
    let loaded: Awaited<ReturnType<typeof loadOne>>[];
    try {
      loaded = await Promise.all(reads.map(({ ref, read }) => loadOne(ref, read)));
    } finally {
      await generation?.end();
    }
    loaded = refuseMixedReads(loaded, await changedFiles());
    let changed = false;
    if (loaded.every((result) => result.ok)) {
      await prepareIndexes(loaded);
      changed = swap(loaded);
    } else if (state.generation === undefined) {
      // Still nothing served (the first load failed): /ready reports this attempt.
      state.readiness.failed = loaded.filter((result) => !result.ok).length;
      state.readiness.loaded = loaded.length - state.readiness.failed;
    }
    return outcome(loaded, 'all', trigger, changed);
  }

  function versionServed(ref: TableRef): TableVersion {
    const version = state.generation?.tables.get(ref.key)?.version ?? '';
    return { dataset_id: ref.datasetId, table_id: ref.table.id, version };
  }

  function confirmUnchanged(datasetId: string, tableId: string, token: string, readAt: number): boolean {
    const ref = refs.get(tableKey(datasetId, tableId));
    if (ref === undefined || tokens.get(ref.key) !== token) return false;
    // A stand-in for a token that could not be read skips the reload but confirms nothing about the data.
    if (ref.table.materialization !== 'live' && unreadableCode(token) === undefined) {
      metrics.table(datasetId, tableId).recordCurrent(readAt);
    }
    return true;
  }

  /** The answer to a refresh that loaded nothing: the data served stays as it is. */
  function skipped(): ReloadOutcome {
    const counts = { total: 1, succeeded: 1, failed: 0 };
    return { ok: true, counts, failures: [], generation: state.generation?.version };
  }

  /** The answer to a reload asked before the first load is over: nothing runs, nothing is queued. */
  function refused(scope: 'all' | 'table', trigger: LoadTrigger): ReloadOutcome {
    const waiting = [...(state.readiness.waiting?.values() ?? [])].map((wait) => ({
      dataset_id: wait.datasetId,
      table_id: wait.tableId,
      code: wait.code,
    }));
    logger.warn({ scope, trigger, waiting: waiting.length }, 'reload refused: the first load is not over');
    const total = scope === 'all' ? refs.size : 1;
    return {
      ok: false,
      counts: { total, succeeded: 0, failed: 0 },
      failures: [],
      generation: state.generation?.version,
      firstLoadRunning: { waiting },
    };
  }

  return {
    load() {
      return exclusive(async () => {
        // Once one table failed, the others' results no longer count (a later reload sets the counts).
        let over = false;
        try {
          const loaded = await Promise.all(
            [...refs.values()].map(async (ref) => {
              const result = await loadOne(ref);
              if (!result.ok) {
                if (!over) state.readiness.failed++;
                throw result.error;
              }
              if (over) return result;
              state.readiness.loaded++;
              logger.info(
                { dataset_id: ref.datasetId, table_id: ref.table.id, ...loadedSize(result) },
                'table loaded',
              );
              return result;
            }),
          );
          swap(loaded);
          metrics.recordReload('all', 'startup', 'ok');
        } catch (error) {
          // Counted too: a start that went ahead without a database keeps serving with this load failed.
          metrics.recordReload('all', 'startup', 'failed');
          throw error;
        } finally {
          over = true;
          starting = false;
        }
      });
    },
    isStarting() {
      return starting;
    },
    // Change tokens are read before the reload takes its turn: a `change_token_sql` waiting for a lock (until the
    // source's query_timeout) then holds up no other table's reload.
    async reloadAll(trigger) {
      if (starting) return refused('all', trigger);
      const reads = await readTokens();
      return exclusive(() => reloadEverything(trigger, reads));
    },
    async reloadTable(datasetId, tableId, trigger, seen, since) {
      if (starting) return refused('table', trigger);
      const ref = refs.get(tableKey(datasetId, tableId));
      if (!ref) throw new TypeError(`no table ${datasetId}/${tableId} in the config`);
      // A poll's reload loads what its token names; a re-read in turn is a stat, for a file that may be settling.
      const early = seen === undefined ? await readToken(ref) : { readAt: seen.readAt, token: seen.token };
      return exclusive(async () => {
        // Without a generation there is nothing to patch: everything loads, as at startup.
        if (state.generation === undefined) return reloadEverything(trigger);
        // The change the poll found was read by a load that ran meanwhile (an admin reload, say): the data served
        // is at least that new, and loading it again would only double the memory peak and the work.
        if (seen !== undefined && confirmUnchanged(datasetId, tableId, seen.token, seen.readAt)) {
          logger.debug(
            { trigger, dataset_id: datasetId, table_id: tableId },
            'reload skipped: already loaded',
          );
          return skipped();
        }
        // A refresh reloads the tables sharing the table's file with it; an operator's reload, the table asked for.
        const group = trigger === 'admin' ? [ref] : (groups.get(ref.key) ?? []).map((key) => refs.get(key));
        // Each table of a file has a round of its own, and each round loads them all: the first round to run has
        // loaded them for the others begun with it (an interval reload would otherwise load the file once per table).
        if (since !== undefined && group.every((member) => (readMarks.get(member?.key ?? '') ?? 0) > since)) {
          logger.debug(
            { trigger, dataset_id: datasetId, table_id: tableId },
            'reload skipped: already loaded',
          );
          return skipped();
        }
        // The poll found the file still, but this reload waited its turn: a file being written again since may be
        // half written, and the next polls load it once it holds still. Other tokens are not read in turn.
        const read = seen !== undefined && ref.tokens?.settling !== undefined ? await readToken(ref) : early;
        if (
          read !== early &&
          read.token !== undefined &&
          read.token !== seen?.token &&
          ref.tokens?.settling?.(read.token)
        ) {
          logger.debug(
            { trigger, dataset_id: datasetId, table_id: tableId },
            'reload deferred: source changing',
          );
          return skipped();
        }
        // One after another, as reloads run: the sheets of a large workbook decoded at once would hold it that often.
        const changedFile = await watchFiles(group.map((member) => (member as TableRef).key));
        const loads: Loaded[] = [];
        for (const member of group)
          loads.push(await loadOne(member as TableRef, member === ref ? read : undefined));
        const loaded = refuseMixedReads(loads, await changedFile());
        // All or none: a swap of some would serve sheets of two versions of one workbook side by side.
        const complete = loaded.every((result) => result.ok);
        if (complete) await prepareIndexes(loaded);
        return outcome(loaded, 'table', trigger, complete && swap(loaded));
      });
    },
    readMark: () => marks,
    hasTable(datasetId, tableId) {
      return refs.has(tableKey(datasetId, tableId));
    },
    confirmUnchanged,
  };
}

function failureOf(result: Loaded): ReloadFailure {
  return {
    dataset_id: result.ref.datasetId,
    table_id: result.ref.table.id,
    code: result.ok ? '' : codeOf(result.error),
  };
}

/** What a loaded table holds: its rows, or for a live table (whose snapshot is empty) only that it is live. */
function loadedSize(result: Extract<Loaded, { ok: true }>): Record<string, unknown> {
  return result.ref.table.materialization === 'live'
    ? { materialization: 'live' }
    : { rows: result.snapshot.rowCount };
}
