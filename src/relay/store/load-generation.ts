// Loads every table of the config into a new generation; any failure rejects with the table's error.
// PostgreSQL tables are streamed (snapshot) or probed (live, which keeps an empty snapshot).
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import type { Clock } from '../../platform/clock.ts';
import type { FileSourceConfig, RelayConfig, TableConfig } from '../config/schema.ts';
import { openFileSource } from '../sources/open-file-source.ts';
import type { PostgresSources } from '../sources/postgres/postgres-sources.ts';
import { buildTable } from './build-table.ts';
import { digestColumns } from './digest-columns.ts';
import { createGeneration, type Generation, tableKey } from './generation.ts';
import type { TableSnapshot } from './table-snapshot.ts';

const NO_ROWS: AsyncIterable<unknown[][]> = { [Symbol.asyncIterator]: async function* () {} };

export interface LoadOptions {
  readonly baseDir: string;
  readonly clock: Clock;
  /** Called as each table finishes, for readiness counts and logs. */
  readonly onTableLoaded?: (datasetId: string, table: TableSnapshot) => void;
  /** The relay's PostgreSQL sources; required when the config has any. */
  readonly postgres?: PostgresSources | undefined;
}

export async function loadGeneration(config: RelayConfig, options: LoadOptions): Promise<Generation> {
  const jobs = config.datasets.flatMap((dataset) =>
    dataset.tables.map(async (table) => {
      const snapshot = await loadTable(config, table, options);
      options.onTableLoaded?.(dataset.id, snapshot);
      return [tableKey(dataset.id, table.id), snapshot] as const;
    }),
  );
  return assembleGeneration(new Map(await Promise.all(jobs)), options.clock.now());
}

/** A generation over loaded snapshots; its version depends only on the table versions, never on timing. */
export function assembleGeneration(tables: Map<string, TableSnapshot>, loadedAt: number): Generation {
  const digest = createHash('sha256');
  for (const key of [...tables.keys()].sort()) digest.update(`${key}=${tables.get(key)?.version};`);
  return createGeneration(digest.digest('hex').slice(0, 32), loadedAt, tables);
}

export async function loadTable(
  config: RelayConfig,
  table: TableConfig,
  options: LoadOptions,
): Promise<TableSnapshot> {
  if (table.source.type === 'postgres') {
    if (!options.postgres)
      throw new TypeError(`table ${table.id} is a PostgreSQL source but none is configured`);
    if (options.postgres.isLive(table)) return probeLiveTable(table, options.postgres, options.clock.now());
    return loadPostgresTable(table, options.postgres, options.clock.now());
  }
  return loadFileTable(config, table, table.source, options);
}

async function loadFileTable(
  config: RelayConfig,
  table: TableConfig,
  file: FileSourceConfig,
  options: LoadOptions,
): Promise<TableSnapshot> {
  // Read before the data (as the change token is): a change made during the load leaves the older time.
  const modifiedAt = await stat(resolve(options.baseDir, file.path)).then(
    (info) => Math.floor(info.mtimeMs),
    () => undefined,
  );
  const source = await openFileSource(table.id, file, {
    baseDir: options.baseDir,
    maxFileBytes: config.server.max_source_file_bytes,
    xlsxMaxFileBytes: config.server.xlsx_max_file_bytes,
  });
  const version = createHash('sha256')
    .update(JSON.stringify(table))
    .update(source.contentHash)
    .digest('hex')
    .slice(0, 32);
  return buildTable({
    config: table,
    columns: source.columns,
    batches: source.batches,
    columnBatches: source.columnBatches,
    rowNumber: source.rowNumber,
    excelSerials: isXlsx(file),
    version,
    loadedAt: options.clock.now(),
    modifiedAt,
    byteSize: source.byteSize,
  });
}

/** A PostgreSQL snapshot: rows streamed from the server; the version digests the schema and the loaded columns. */
async function loadPostgresTable(
  table: TableConfig,
  postgres: PostgresSources,
  loadedAt: number,
): Promise<TableSnapshot> {
  const source = await postgres.openSnapshot(table);
  return buildTable({
    config: table,
    columns: source.columns,
    batches: NO_ROWS,
    columnBatches: source.columnBatches,
    excelSerials: false,
    version: async (columns) =>
      createHash('sha256')
        .update(JSON.stringify(table))
        .update(await digestColumns(columns))
        .digest('hex')
        .slice(0, 32),
    loadedAt,
    byteSize: () => source.bytesRead(),
  });
}

/**
 * A live table is probed, not loaded: its snapshot is empty (reads go to the database) and its version is the
 * digest of its config, so a reload of it re-checks the table and changes nothing else.
 */
async function probeLiveTable(
  table: TableConfig,
  postgres: PostgresSources,
  loadedAt: number,
): Promise<TableSnapshot> {
  await postgres.probeLive(table);
  return buildTable({
    config: table,
    columns: table.schema.fields.map((field) => field.name),
    batches: NO_ROWS,
    excelSerials: false,
    version: postgres.liveVersion(table),
    loadedAt,
    byteSize: 0,
  });
}

function isXlsx(file: FileSourceConfig): boolean {
  return file.format ? file.format.xlsx !== undefined : extname(file.path).toLowerCase() === '.xlsx';
}
