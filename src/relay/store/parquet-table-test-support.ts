// Loads a Parquet table config from `dir` and builds it, through the row path or the column path (the two must
// serve the same cells).
import type { FileSourceConfig, TableConfig } from '../config/schema.ts';
import { openFileSource } from '../sources/open-file-source.ts';
import { buildTable } from './build-table.ts';

export async function loadParquetTable(dir: string, config: TableConfig, path: 'rows' | 'columns') {
  const source = await openFileSource(config.id, config.source as FileSourceConfig, {
    baseDir: dir,
    maxFileBytes: 1e8,
    xlsxMaxFileBytes: 1e8,
  });
  if (!source.columnBatches) throw new Error('a Parquet source reads column batches too');
  return buildTable({
    config,
    columns: source.columns,
    batches: source.batches,
    columnBatches: path === 'columns' ? source.columnBatches : undefined,
    excelSerials: false,
    version: 'v',
    loadedAt: 0,
    byteSize: source.byteSize,
  });
}
