// A live PostgreSQL table: a small read-only pool, a startup probe of its columns and key index, and reads
// pushed down as one parameterized SELECT each (behind a read-only guard, in one implicit transaction: one round
// trip).
import { createHash } from 'node:crypto';
import type { Logger } from '../../../platform/log.ts';
import { createOutageLog } from '../../../platform/outage-log.ts';
import type { PostgresSourceConfig, TableConfig } from '../../config/schema.ts';
import { relayProblem } from '../../problems.ts';
import type { CellKey } from '../../store/column.ts';
import { SourceError } from '../source-error.ts';
import { buildKeySelect, buildLiveSelect, type LiveFilter, type SqlStatement } from './build-live-select.ts';
import { comparedType } from './live-comparison.ts';
import { type LiveConnection, openLiveConnection } from './live-connection.ts';
import { createLivePool } from './live-pool.ts';
import { LiveRowInvalid, readProblem } from './live-read-problems.ts';
import { preparedStatementTrouble } from './prepared-trouble.ts';
import { probeLiveTable } from './probe-live-table.ts';
import {
  classifyPgError,
  clientConfig,
  clientTimeoutMs,
  describePgError,
  liveGuard,
  noteEarlyCancel,
  qualifiedName,
} from './read-only-session.ts';
import type { TrackedClients } from './tracked-clients.ts';

/** A row as PostgreSQL's text output (null for NULL), aligned with the requested columns. */
export type LiveRow = readonly (string | null)[];

/**
 * Turns a row read into what is served. Throws LiveRowInvalid for a value that does not fit the declared schema:
 * the read then answers 502 `datasource.row_invalid`, is logged and counted as such.
 */
export type LiveRowRenderer<T> = (row: LiveRow) => T;

export interface LivePage<T> {
  readonly rows: readonly LiveRow[];
  /** Each row as the renderer made it. */
  readonly items: readonly T[];
  readonly hasMore: boolean;
}

export interface LivePageRequest {
  readonly columns: readonly string[];
  readonly filters: readonly LiveFilter[];
  /** PostgreSQL text of the last primary key already served. */
  readonly after: string | undefined;
  readonly limit: number;
  /** False once nobody waits for the page any more: a read still waiting for a connection is then dropped. */
  readonly wanted?: (() => boolean) | undefined;
  /** Checks every row read, the look-ahead row included (it may throw LiveRowInvalid), before any is rendered. */
  readonly checkRows?: ((rows: readonly LiveRow[]) => void) | undefined;
}

/** What one live statement cost, for metrics. */
export interface LiveScan {
  readonly tableId: string;
  /** `row_invalid`: the database answered, with a row that does not fit the declared schema. */
  /**
   * `abandoned`: the request was answered (its client left, or it timed out) while the read waited for a pooled
   * connection; the read was never sent.
   */
  readonly outcome:
    | 'ok'
    | 'row_invalid'
    | 'unavailable'
    | 'timeout'
    | 'invalid_input'
    | 'failed'
    | 'abandoned';
  /** Waiting for a pooled connection. */
  readonly waitMs: number;
  readonly durationMs: number;
  readonly rows: number;
  readonly bytes: number;
}

export interface LiveTable {
  readonly tableId: string;
  /** Digest of the table's config: binds cursors, equal on every replica (a live table has no data version). */
  readonly version: string;
  /**
   * Checks the table exists with the declared columns and compatible types, and (tables and materialized views) a
   * unique index on the key: keyset pagination skips or repeats rows otherwise.
   */
  probe(): Promise<void>;
  /** One page in primary-key order; rejects with a `datasource.*` or `filter.invalid_value` problem. */
  readPage<T>(request: LivePageRequest, render: LiveRowRenderer<T>): Promise<LivePage<T>>;
  /** The row with this primary key as rendered, or undefined; `wanted` and `checkRows` as for `readPage`. */
  readByKey<T>(
    columns: readonly string[],
    key: CellKey,
    render: LiveRowRenderer<T>,
    wanted?: () => boolean,
    checkRows?: (rows: readonly LiveRow[]) => void,
  ): Promise<T | undefined>;
  close(): Promise<void>;
}

export interface LiveTableDeps {
  /** The dataset of the table, for logs: two datasets may have tables of the same id. */
  readonly datasetId: string;
  readonly logger: Logger;
  readonly now: () => number;
  readonly onScan?: ((scan: LiveScan) => void) | undefined;
  /** Where the probes' connections are tracked while open, so that closing the sources stops them. */
  readonly probes?: TrackedClients;
}

/** How long a table found unfit for its declared schema is taken as such before its columns are read again. */
const UNFIT_RECHECK_MS = 1_000;

function sameTypes(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, type] of a) if (b.get(name) !== type) return false;
  return true;
}

export function createLiveTable(table: TableConfig, url: string, deps: LiveTableDeps): LiveTable {
  const source = table.source as PostgresSourceConfig;
  if (!source.table) throw new TypeError(`live table ${table.id} has no source.table`);
  const relation = qualifiedName(source.table);
  const timeoutMs = clientTimeoutMs(source);
  const pool = createLivePool<LiveConnection>({
    open: () =>
      // The driver only opens the connection; reads are timed by the connection itself (`timeoutMs`).
      openLiveConnection(
        clientConfig(url, source, { clientTimeout: false }),
        timeoutMs,
        (error) => {
          deps.logger.warn(
            { dataset_id: deps.datasetId, table_id: table.id, reason: describePgError(error) },
            'live table connection lost',
          );
        },
        (outcome) => {
          // The statement keeps its backend busy until the server's own statement_timeout (if it has one) ends it.
          if (outcome === 'confirmed') return;
          deps.logger.warn(
            { dataset_id: deps.datasetId, table_id: table.id, cancel: outcome },
            'live read past its time limit: the database did not confirm the cancel of its statement, which may still be running',
          );
        },
      ),
    max: source.live_max_connections,
    depth: source.live_pipeline_depth,
    acquireTimeoutMs: source.connect_timeout,
    idleTimeoutMs: 30_000,
  });
  const guard = liveGuard(source);
  // A read failing for the reason of the last one logged, less than 10 s after it, is counted, not logged.
  const outages = createOutageLog(deps.logger, deps.now, {
    failed: 'live read failed',
    recovered: 'live table answering again',
    countField: 'failed_reads',
    fieldsOf: () => ({ dataset_id: deps.datasetId, table_id: table.id }),
    intervalMs: 10_000,
  });
  // Each column's PostgreSQL type, once the probe has read them: filters are shaped by them.
  let columnTypes: ReadonlyMap<string, string> = new Map();
  const version = createHash('sha256').update(JSON.stringify(table)).digest('hex').slice(0, 32);

  // Off from the start by configuration, or once the server is found not to keep prepared statements.
  let prepare = source.live_prepared_statements;

  // A re-read of the column types in progress (`reprobe`), and how many have changed `columnTypes`.
  let reprobing: Promise<void> | undefined;
  let typesRead = 0;
  // The last re-read that found the table unfit, kept a moment: reads failing meanwhile do not probe again.
  let unfit: { readonly at: number; readonly error: unknown } | undefined;

  /**
   * The table changed under its reads (a statement built from the column types of read `builtFrom` met a type
   * error): its columns are read and checked again, once for all the reads that meet it together; none when they
   * were read again since that statement was built.
   */
  function reprobe(builtFrom: number): Promise<void> {
    if (typesRead > builtFrom) return Promise.resolve();
    if (unfit !== undefined && performance.now() - unfit.at < UNFIT_RECHECK_MS)
      return Promise.reject(unfit.error);
    reprobing ??= probeLiveTable(table, url, relation, deps.probes)
      .then((types) => {
        unfit = undefined;
        if (!sameTypes(columnTypes, types)) {
          deps.logger.warn(
            { dataset_id: deps.datasetId, table_id: table.id },
            'live table: column types changed in the database; reads follow the new types',
          );
        }
        columnTypes = types;
        typesRead += 1;
      })
      .catch((error: unknown) => {
        unfit = { at: performance.now(), error };
        throw error;
      })
      .finally(() => {
        reprobing = undefined;
      });
    return reprobing;
  }

  /**
   * Runs the statement `build` makes (from the column types known when it is called) and renders its rows,
   * reporting the scan once its outcome is known.
   */
  async function run<T>(
    build: () => SqlStatement | undefined,
    render: (rows: LiveRow[]) => T,
    wanted: (() => boolean) | undefined,
  ): Promise<T> {
    const started = deps.now();
    let builtFrom = typesRead;
    let statement = build() as SqlStatement;
    let reprobed = false;
    for (let attempt = 1; ; attempt++) {
      let connection: LiveConnection;
      try {
        connection = await pool.acquire();
      } catch (error) {
        // The wait for a connection that never came is the wait that matters: it is reported as such.
        const gaveUp = deps.now();
        report('unavailable', started, gaveUp, 0, 0, gaveUp);
        throw failed(error);
      }
      const acquired = deps.now();
      // Its request was answered while it waited (the client left, or its time ran out): under a slow or
      // overloaded database, reads nobody will see must not add to its queue. What is thrown goes nowhere.
      if (wanted?.() === false) {
        pool.release(connection);
        report('abandoned', started, acquired, 0, 0, acquired);
        throw relayProblem('datasource.unavailable', 'the request was answered before the read could start');
      }
      // A retry runs unprepared: other connections may hold the same stale statement.
      const prepared = prepare && attempt === 1;
      let rows: LiveRow[] | undefined;
      let failure: unknown;
      const sentAt = performance.now();
      try {
        rows = await connection.read(guard, statement.text, statement.values, prepared);
      } catch (error) {
        failure = error ?? new Error('live read failed');
      } finally {
        pool.release(connection);
      }
      if (rows === undefined) {
        const trouble = preparedStatementTrouble(failure);
        // A prepared statement gone or stale is the connection's trouble, not the read's: read again unprepared.
        if (trouble !== undefined && prepared) {
          if (trouble === 'shared' && prepare) {
            prepare = false;
            deps.logger.warn(
              { dataset_id: deps.datasetId, table_id: table.id },
              'live table: the database session is shared (a transaction pooler?) and does not keep prepared statements; reads run unprepared from now on',
            );
          }
          continue;
        }
        // The table changed under the statement itself (its parameters are typed as the probe found the columns):
        // its columns are checked again and the statement built from what they are now, once. A column that no
        // longer fits its field fails the read.
        if (trouble === 'stale' && !reprobed) {
          reprobed = true;
          try {
            await reprobe(builtFrom);
          } catch (error) {
            report('failed', started, acquired, 0, 0);
            // The probe's own finding (which column, what it is now): no value, no connection string.
            const finding =
              error instanceof SourceError ? { column: error.column, detail: error.detail } : {};
            warnRepeated(
              describePgError(error),
              'live table changed in the database and no longer fits its declared schema: reads fail until it does, or the configuration follows it',
              finding,
            );
            throw relayProblem('datasource.query_failed', 'the database refused the read');
          }
          builtFrom = typesRead;
          const rebuilt = build();
          // Under the new types no row can match (a key the column can no longer hold).
          if (rebuilt === undefined) return render([]);
          statement = rebuilt;
          continue;
        }
        noteEarlyCancel(failure, sentAt, source);
        report(classifyPgError(failure), started, acquired, 0, 0);
        throw failed(failure);
      }
      // Counted as the database sent them (a page's look-ahead row included), before rendering drops any.
      const finished = deps.now();
      const count = rows.length;
      const bytes = rowBytes(rows);
      let rendered: T;
      try {
        rendered = render(rows);
      } catch (error) {
        const invalid = error instanceof LiveRowInvalid;
        report(invalid ? 'row_invalid' : 'failed', started, acquired, count, bytes, finished);
        throw invalid ? rowInvalid(error) : error;
      }
      report('ok', started, acquired, count, bytes, finished);
      outages.answered(table.id);
      return rendered;
    }
  }

  /** The database's data, not the caller's request, is at fault: the operator hears which column (not its value). */
  function rowInvalid(error: LiveRowInvalid) {
    const { column, field, reason } = error;
    const where = { dataset_id: deps.datasetId, table_id: table.id, column, field, reason };
    deps.logger.warn(where, 'live read: a row does not fit the declared schema');
    return relayProblem('datasource.row_invalid', error.message);
  }

  function failed(error: unknown) {
    // A filter value PostgreSQL refuses is the caller's mistake, not an operational event.
    if (classifyPgError(error) !== 'invalid_input') warnRepeated(describePgError(error), 'live read failed');
    return readProblem(error);
  }

  /** A warning every failing read would repeat: held back while it repeats (platform/outage-log.ts). */
  function warnRepeated(reason: string, message: string, finding: Record<string, unknown> = {}) {
    const fields = { dataset_id: deps.datasetId, table_id: table.id, reason, ...finding };
    outages.failed(table.id, reason, fields, message);
  }

  function report(
    outcome: LiveScan['outcome'],
    started: number,
    acquired: number,
    rows: number,
    bytes: number,
    finished = deps.now(),
  ) {
    deps.onScan?.({
      tableId: table.id,
      outcome,
      waitMs: acquired - started,
      // The query alone (the last attempt's, for a read run again unprepared): the wait is reported apart.
      durationMs: finished - acquired,
      rows,
      bytes,
    });
  }

  return {
    tableId: table.id,
    version,
    async probe() {
      columnTypes = await probeLiveTable(table, url, relation, deps.probes);
    },
    async readPage(request, render) {
      const build = () =>
        buildLiveSelect({
          relation,
          columns: request.columns,
          primaryKey: table.primary_key,
          filters: request.filters,
          columnTypes,
          after: request.after,
          limit: request.limit + 1,
        });
      return run(
        build,
        (rows) => {
          request.checkRows?.(rows);
          const hasMore = rows.length > request.limit;
          if (hasMore) rows.pop();
          return { rows, items: rows.map(render), hasMore };
        },
        request.wanted,
      );
    },
    async readByKey(columns, key, render, wanted, checkRows) {
      const keyType = table.schema.fields.find((field) => field.name === table.primary_key)?.type ?? 'string';
      const build = () => {
        const pgType = comparedType(columnTypes.get(table.primary_key) ?? 'text', keyType);
        return buildKeySelect(relation, columns, { column: table.primary_key, pgType }, key);
      };
      // No row of the column can hold that key: nothing to read.
      if (build() === undefined) return undefined;
      const first = (rows: readonly LiveRow[]) => {
        checkRows?.(rows);
        return rows[0] === undefined ? undefined : render(rows[0]);
      };
      return run(build, first, wanted);
    },
    async close() {
      await pool.end();
    },
  };
}

function rowBytes(rows: readonly LiveRow[]): number {
  let bytes = 0;
  for (const row of rows) for (const cell of row) bytes += cell === null ? 0 : cell.length;
  return bytes;
}
