// Every PostgreSQL source of one relay: connection URLs by table, the live tables with their pools, and the
// entry points loading, refreshing and reading go through (snapshot reads, change tokens, live probes).
import type { Logger } from '../../../platform/log.ts';
import type { PostgresSourceConfig, RelayConfig, TableConfig } from '../../config/schema.ts';
import { tableKey } from '../../store/generation.ts';
import { createLiveTable, type LiveScan, type LiveTable } from './live-table.ts';
import { readPostgresChangeToken } from './read-change-token.ts';
import { openPostgresSnapshot, type PostgresSnapshotRows } from './read-postgres-snapshot.ts';
import { exportSharedSnapshots, type SharedSnapshots } from './shared-snapshot.ts';
import { createTrackedClients } from './tracked-clients.ts';

export interface PostgresSources {
  /** True for a postgres table with `materialization: live`: it is probed, never loaded into memory. */
  isLive(table: TableConfig): boolean;
  /** The live table serving `datasetId/tableId`, or undefined when that table is a snapshot (or a file). */
  liveTable(datasetId: string, tableId: string): LiveTable | undefined;
  /** Starts streaming a snapshot table (see openPostgresSnapshot), at the shared moment of its database if any. */
  openSnapshot(table: TableConfig): Promise<PostgresSnapshotRows>;
  /**
   * Until `end`, the snapshot tables of each database read one moment of it (see exportSharedSnapshots): for a
   * reload of every table, so that the tables of one generation agree with each other as the database did.
   */
  shareSnapshots(): Promise<{ end(): Promise<void> }>;
  /** Checks a live table is servable (see LiveTable.probe). */
  probeLive(table: TableConfig): Promise<void>;
  /** The version a live table's cursors are bound to (a digest of its config). */
  liveVersion(table: TableConfig): string;
  /**
   * The table's `change_token_sql` answer, reduced to a short token; equal tokens mean unchanged data.
   * Rejects with a SourceError (`ingest.source_unavailable`, `ingest.query_failed`, `ingest.query_timeout`).
   */
  changeToken(table: TableConfig): Promise<string>;
  /** Ends the live pools and stops the snapshot reads still running (cancelled); later calls fail. */
  close(): Promise<void>;
}

export interface PostgresSourcesDeps {
  readonly logger: Logger;
  readonly now: () => number;
  /** Called after every live statement, for metrics. */
  readonly onLiveScan?: ((datasetId: string, scan: LiveScan) => void) | undefined;
}

export function isPostgresTable(table: TableConfig): boolean {
  return table.source.type === 'postgres';
}

export function isLiveTable(table: TableConfig): boolean {
  return table.source.type === 'postgres' && table.materialization === 'live';
}

/** `urls` maps `datasetId/tableId` to the connection URL read from the table's `connection_env`. */
export function createPostgresSources(
  config: RelayConfig,
  urls: ReadonlyMap<string, string>,
  deps: PostgresSourcesDeps,
): PostgresSources {
  // Keyed by the source block (one object per table in the frozen config): a caller may hand over a copy of the
  // table, never another table's source.
  const urlBySource = new Map<TableConfig['source'], string>();
  const live = new Map<string, LiveTable>();
  // Connections outside the live pools (snapshot reads, shared moments, probes): closing the sources stops them.
  const reads = createTrackedClients();
  const liveBySource = new Map<TableConfig['source'], LiveTable>();
  for (const dataset of config.datasets) {
    for (const table of dataset.tables) {
      if (!isPostgresTable(table)) continue;
      const key = tableKey(dataset.id, table.id);
      const url = urls.get(key);
      if (url === undefined) throw new TypeError(`no connection URL resolved for table ${key}`);
      urlBySource.set(table.source, url);
      if (isLiveTable(table)) {
        const liveTable = createLiveTable(table, url, {
          datasetId: dataset.id,
          logger: deps.logger,
          now: deps.now,
          onScan: (scan) => deps.onLiveScan?.(dataset.id, scan),
          probes: reads,
        });
        live.set(key, liveTable);
        liveBySource.set(table.source, liveTable);
      }
    }
  }
  // The snapshot tables of each database, for the moments they share.
  const snapshotSources = new Map<string, PostgresSourceConfig[]>();
  for (const [source, url] of urlBySource) {
    if (liveBySource.has(source) || source.type !== 'postgres') continue;
    snapshotSources.set(url, [...(snapshotSources.get(url) ?? []), source]);
  }
  let shared: SharedSnapshots | undefined;
  let closed = false;
  const urlOf = (table: TableConfig): string => {
    if (closed) throw new TypeError('the PostgreSQL sources are closed');
    const url = urlBySource.get(table.source);
    if (url === undefined) throw new TypeError(`table ${table.id} is not a PostgreSQL source of this relay`);
    return url;
  };
  return {
    isLive: (table) => liveBySource.has(table.source),
    liveTable: (datasetId, tableId) => live.get(tableKey(datasetId, tableId)),
    openSnapshot(table) {
      const url = urlOf(table);
      return openPostgresSnapshot(
        table,
        url,
        shared?.idFor(url),
        (reason) =>
          deps.logger.warn(
            { table_id: table.id, reason },
            'snapshot table read at its own moment: the shared snapshot of its database could not be imported',
          ),
        reads,
      );
    },
    async shareSnapshots() {
      const snapshots = await exportSharedSnapshots(snapshotSources, deps.logger, reads);
      shared = snapshots;
      return {
        async end() {
          if (shared === snapshots) shared = undefined;
          await snapshots.end();
        },
      };
    },
    async probeLive(table) {
      urlOf(table);
      const liveTable = liveBySource.get(table.source);
      if (!liveTable) throw new TypeError(`table ${table.id} is not live`);
      await liveTable.probe();
    },
    liveVersion(table) {
      const liveTable = liveBySource.get(table.source);
      if (!liveTable) throw new TypeError(`table ${table.id} is not live`);
      return liveTable.version;
    },
    changeToken: (table) => readPostgresChangeToken(table, urlOf(table)),
    async close() {
      if (closed) return;
      closed = true;
      // Nothing waits for what still runs (the drain is over): live reads and snapshot reads are cancelled.
      await Promise.all([...[...live.values()].map((table) => table.close()), reads.cancelAll()]);
    },
  };
}
