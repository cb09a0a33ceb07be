// Opens a table's file source: resolves the path, picks the format, enforces the size guard, then hands off to
// the CSV, XLSX or Parquet reader.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FileSourceConfig } from '../config/schema.ts';
import { type ChosenFormat, fileFormatOf, unknownFormatDetail } from './file-format.ts';
import { readCsv } from './read-csv.ts';
import { readParquet } from './read-parquet.ts';
import { readXlsx } from './read-xlsx.ts';
import { SourceError } from './source-error.ts';
import {
  fileAccessError,
  fileVersion,
  hashSourceFile,
  openRegularFile,
  type SourceFile,
} from './source-file.ts';

/** Rows with the SHA-256 of the bytes they were read from, as openFileSource gives them. */
export type HashedSourceRows = SourceRows & { readonly contentHash: string };

export interface SourceRows {
  /** Column names as found in the source, or synthesised `column_1..n` when there is no header row. */
  readonly columns: readonly string[];
  /**
   * Data rows in source order, in batches (arrays of rows; each row is an array aligned with `columns`).
   * Iterating may throw a SourceError: CSV and Parquet are decoded while iterating, and each iteration reads the
   * file again from the start after checking it has not changed since it was opened (`ingest.file_changed`).
   * XLSX is decoded when opened and iterated from memory.
   */
  readonly batches: AsyncIterable<unknown[][]>;
  /**
   * The same rows column by column, for readers that hold columns (Parquet, XLSX): loading skips building a row
   * array per row. Same cells (DATE ones as day numbers, see `ColumnBatch.epochDays`), same order and the same
   * errors as `batches`.
   */
  readonly columnBatches?: AsyncIterable<ColumnBatch>;
  /**
   * The data row number (1-based, header not counted) of the row yielded at 0-based `index`, for readers that leave
   * rows out (XLSX skips empty rows): load errors then name a row as the reader's own errors do. Else `index + 1`.
   */
  readonly rowNumber?: (index: number) => number;
  /** Bytes of the file, for metrics. */
  readonly byteSize: number;
  /**
   * SHA-256 (hex) of the file's bytes, always set by openFileSource: XLSX hashes exactly the bytes it decoded, CSV
   * and Parquet the file the size guard passed (each pass of theirs checks it is still that file). Hashing the path
   * again later could read a file replaced meanwhile, without bound, and give old rows the new file's version.
   */
  readonly contentHash?: string;
}

/** Consecutive data rows as one array of cells per source column (aligned with `columns`), each `rowCount` long. */
export interface ColumnBatch {
  readonly rowCount: number;
  readonly columns: readonly ArrayLike<unknown>[];
  /**
   * Columns (by position) whose cells are Parquet DATE values given as whole days since 1970-01-01 (or null):
   * day `d` stands for the cell `new Date(d * 86_400_000)` that `batches` yields.
   */
  readonly epochDays?: readonly boolean[];
}

export interface OpenSourceOptions {
  /** Directory of the config file: `source.path` is resolved against it. */
  baseDir: string;
  /** `server.max_source_file_bytes`: largest CSV or Parquet file. */
  maxFileBytes: number;
  /** `server.xlsx_max_file_bytes`: largest XLSX file. */
  xlsxMaxFileBytes: number;
}

type SourceConfig = FileSourceConfig;

export type { CsvFormat, XlsxFormat } from './file-format.ts';

/**
 * What each reader yields (coercion to the declared schema is the store's job):
 * - CSV: every cell is the string exactly as in the file; an empty field stays ''.
 * - XLSX: string (as stored) | number | boolean | Date (date-formatted and `t="d"` cells) | null (empty, or an
 *   empty string). A date typed into a cell without a date format arrives as its numeric Excel serial, wrapped
 *   as Date1904Number in a workbook using the 1904 date system. Formula and error cells are refused.
 * - Parquet: as hyparquet decodes them: string, number, bigint (INT64), boolean, Date (DATE/TIMESTAMP), null,
 *   and for nested columns arrays or objects; but a top-level DECIMAL is its exact decimal text, a top-level TIME
 *   a ParquetTimeOfDay (its time of day as text), and a timestamp finer than a millisecond is floored.
 */
export async function openFileSource(
  tableId: string,
  source: SourceConfig,
  options: OpenSourceOptions,
): Promise<HashedSourceRows> {
  const format = chooseFormat(tableId, source);
  const limit = format.kind === 'xlsx' ? options.xlsxMaxFileBytes : options.maxFileBytes;
  const limitKey = format.kind === 'xlsx' ? 'server.xlsx_max_file_bytes' : 'server.max_source_file_bytes';
  const file = await statWithinLimit(
    tableId,
    source.path,
    resolve(options.baseDir, source.path),
    limit,
    limitKey,
  );
  // XLSX hashes the bytes it reads whole; the others are hashed here, which also checks (before any decoding)
  // that the file holds exactly the bytes its size says.
  if (format.kind === 'xlsx') return readXlsx(file, format.options);
  const contentHash = await hashSourceFile(file);
  const rows = format.kind === 'csv' ? await readCsv(file, format.options) : await readParquet(file);
  return { ...rows, contentHash };
}

function chooseFormat(tableId: string, source: SourceConfig): ChosenFormat {
  const format = fileFormatOf(source);
  if (format !== undefined) return format;
  throw new SourceError({
    tableId,
    code: 'ingest.unsupported_format',
    detail: unknownFormatDetail(source.path),
  });
}

/**
 * The size guard runs on metadata only, before any byte is decoded; anything it cannot size is refused. The path
 * is checked before it is opened (opening a device can have effects of its own), the opened file again: the size
 * and version are those of the file opened, whatever was at the path a moment before.
 */
async function statWithinLimit(
  tableId: string,
  displayPath: string,
  absolutePath: string,
  limit: number,
  limitKey: string,
): Promise<SourceFile> {
  const path = { tableId, displayPath, absolutePath };
  let found: Awaited<ReturnType<typeof stat>>;
  try {
    found = await stat(absolutePath);
  } catch (error) {
    throw fileAccessError(path, error);
  }
  if (!found.isFile()) {
    throw new SourceError({
      tableId,
      code: 'ingest.file_size_unknown',
      detail: `${displayPath} is not a regular file, so its size cannot be checked`,
    });
  }
  const { handle, stats } = await openRegularFile(path);
  await handle.close();
  if (!(Number.isFinite(limit) && limit > 0) || stats.size > limit) {
    throw new SourceError({
      tableId,
      code: 'ingest.file_too_large',
      detail: `${displayPath} is ${stats.size} bytes, over the ${limitKey} limit of ${limit}`,
    });
  }
  return { tableId, absolutePath, displayPath, byteSize: stats.size, version: fileVersion(stats) };
}
