// Loads every table of the config into a new generation; any failure rejects with the table's error.
import { createHash } from 'node:crypto';
import { extname, resolve } from 'node:path';
import type { Clock } from '../../platform/clock.ts';
import type { RelayConfig, TableConfig } from '../config/schema.ts';
import { openFileSource } from '../sources/open-file-source.ts';
import { buildTable } from './build-table.ts';
import { createGeneration, type Generation, tableKey } from './generation.ts';
import { hashFile } from './hash-file.ts';
import type { TableSnapshot } from './table-snapshot.ts';

export interface LoadOptions {
  readonly baseDir: string;
  readonly clock: Clock;
  /** Called as each table finishes, for readiness counts and logs. */
  readonly onTableLoaded?: (datasetId: string, table: TableSnapshot) => void;
}

export async function loadGeneration(config: RelayConfig, options: LoadOptions): Promise<Generation> {
  const jobs = config.datasets.flatMap((dataset) =>
    dataset.tables.map(async (table) => {
      const snapshot = await loadTable(config, table, options);
      options.onTableLoaded?.(dataset.id, snapshot);
      return [tableKey(dataset.id, table.id), snapshot] as const;
    }),
  );
  const tables = new Map(await Promise.all(jobs));
  const digest = createHash('sha256');
  for (const key of [...tables.keys()].sort()) digest.update(`${key}=${tables.get(key)?.version};`);
  return createGeneration(digest.digest('hex').slice(0, 32), options.clock.now(), tables);
}

export async function loadTable(
  config: RelayConfig,
  table: TableConfig,
  options: LoadOptions,
): Promise<TableSnapshot> {
  const source = await openFileSource(table.id, table.source, {
    baseDir: options.baseDir,
    maxFileBytes: config.server.max_source_file_bytes,
    xlsxMaxFileBytes: config.server.xlsx_max_file_bytes,
  });
  const contentHash = await hashFile(resolve(options.baseDir, table.source.path));
  const version = createHash('sha256')
    .update(JSON.stringify(table))
    .update(contentHash)
    .digest('hex')
    .slice(0, 32);
  return buildTable({
    config: table,
    columns: source.columns,
    batches: source.batches,
    columnBatches: source.columnBatches,
    excelSerials: isXlsx(table),
    version,
    loadedAt: options.clock.now(),
    byteSize: source.byteSize,
  });
}

function isXlsx(table: TableConfig): boolean {
  return table.source.format
    ? table.source.format.xlsx !== undefined
    : extname(table.source.path).toLowerCase() === '.xlsx';
}
