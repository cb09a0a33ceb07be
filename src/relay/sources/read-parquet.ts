// Reads a Parquet file with hyparquet: footer checks at open, then one row group at a time on iteration.
import type { FileHandle } from 'node:fs/promises';
import {
  type AsyncBuffer,
  type FileMetaData,
  type ParquetReadOptions,
  parquetMetadata,
  parquetRead,
  parquetSchema,
  type SchemaElement,
} from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { ColumnBatch, SourceRows } from './open-file-source.ts';
import {
  decimalScaleOf,
  decimalTexts,
  EXACT_PARSERS,
  type TimeUnit,
  timesOfDay,
  timeUnitOf,
  unreadCell,
} from './parquet-cells.ts';
import { withReadableCodecs } from './parquet-codecs.ts';
import { CompressedPages, checkingCompressors } from './parquet-compressed-pages.ts';
import { checkPages, chunkExtents, nestedValueCount, pageError } from './parquet-pages.ts';
import { SourceError } from './source-error.ts';
import { assertUnchanged, BATCH_ROWS, openSourceFile, type SourceFile, sourceError } from './source-file.ts';

export const PARQUET_MAX_FOOTER_BYTES = 32 * 1024 * 1024;
export const PARQUET_MAX_COLUMNS = 4096;
/** As for CSV and XLSX: a few hundred bytes of Parquet can declare billions of rows of one repeated value. */
export const PARQUET_MAX_CELLS = 10_000_000;
const MAGIC = 'PAR1';
const DAY_MS = 86_400_000;

/**
 * Cells are as hyparquet decodes them: string (NOT_UTF8 for bytes that are not UTF-8), number, bigint (INT64),
 * boolean, Date (DATE and TIMESTAMP, sub-millisecond ones floored), null, and arrays or objects for nested
 * columns; a top-level DECIMAL column is given as its exact decimal text (see `decimalText`), a top-level TIME
 * column as ParquetTimeOfDay cells (see `timeOfDayText`). In `columnBatches` a top-level DATE column is given as day
 * numbers instead (flagged in `epochDays`), which spares one Date object per cell.
 */
export async function readParquet(file: SourceFile): Promise<SourceRows> {
  const metadata = await withFile(file, (handle) => readMetadata(file, handle));
  const leaves = metadata.schema.filter((element) => !element.num_children).length;
  if (leaves > PARQUET_MAX_COLUMNS) {
    throw sourceError(
      file,
      'ingest.column_limit',
      `${file.displayPath} has ${leaves} columns, over the limit of ${PARQUET_MAX_COLUMNS}`,
    );
  }
  const children = topLevelColumns(file, metadata);
  const rows = rowCount(file, metadata);
  if (rows * children.length > PARQUET_MAX_CELLS) {
    throw sourceError(
      file,
      'ingest.column_limit',
      `${file.displayPath} has ${rows * children.length} cells (${children.length} columns × ${rows} rows), over the limit of ${PARQUET_MAX_CELLS}`,
    );
  }
  const nested = nestedValueCount(metadata);
  if (nested > PARQUET_MAX_CELLS) {
    throw sourceError(
      file,
      'ingest.column_limit',
      `${file.displayPath} declares ${nested} values in nested (list, map or struct) columns, over the limit of ${PARQUET_MAX_CELLS}`,
    );
  }
  const decimalScales = children.map(({ element, children: nested }) =>
    nested.length === 0 ? checkedDecimalScale(file, element) : undefined,
  );
  const read: FileLayout = {
    file,
    metadata,
    columns: children.map((child) => child.element.name),
    flat: children.map(({ children: nested }) => nested.length === 0),
    epochDays: children.map(({ element, children: nested }) => nested.length === 0 && isPlainDate(element)),
    decimalScales,
    timeUnits: children.map(({ element, children: nested }) =>
      nested.length === 0 && element.repetition_type !== 'REPEATED' ? timeUnitOf(element) : undefined,
    ),
    unscaledMetadata: decimalScales.some((scale) => scale !== undefined)
      ? withoutDecimals(metadata)
      : metadata,
  };
  return {
    columns: read.columns,
    byteSize: file.byteSize,
    batches: { [Symbol.asyncIterator]: () => iterateBatches(read) },
    columnBatches: { [Symbol.asyncIterator]: () => iterateRowGroups(read) },
  };
}

/** The top-level columns of the schema tree, which a footer may leave cut short (a parse error, not a crash). */
function topLevelColumns(
  file: SourceFile,
  metadata: FileMetaData,
): ReturnType<typeof parquetSchema>['children'] {
  try {
    return parquetSchema(metadata).children;
  } catch (error) {
    throw notParquet(file, 'its schema cannot be decoded', error);
  }
}

/** The rows the row groups declare, each a count no reader can be asked to allocate otherwise. */
function rowCount(file: SourceFile, metadata: FileMetaData): number {
  let rows = 0;
  for (const [index, group] of metadata.row_groups.entries()) {
    const groupRows = Number(group.num_rows);
    if (!Number.isSafeInteger(groupRows) || groupRows < 0) {
      throw notParquet(file, `row group ${index + 1} declares ${String(group.num_rows)} rows`);
    }
    rows += groupRows;
  }
  return rows;
}

/** A leaf hyparquet turns into Dates (INT32 with the DATE converted type), one value per row. */
function isPlainDate(element: SchemaElement): boolean {
  return (
    element.type === 'INT32' && element.converted_type === 'DATE' && element.repetition_type !== 'REPEATED'
  );
}

/** The DECIMAL scale of a top-level leaf (see decimalScaleOf), refused when the file's is not one. */
function checkedDecimalScale(file: SourceFile, element: SchemaElement): number | undefined {
  const scale = decimalScaleOf(element);
  if (typeof scale === 'string') throw notParquet(file, `column ${element.name} ${scale}`);
  return scale;
}

/**
 * The metadata with the DECIMAL annotation taken off top-level leaves, so that hyparquet hands over their
 * unscaled integers (it would otherwise scale them through a double). Only the pass reading those columns uses it.
 */
function withoutDecimals(metadata: FileMetaData): FileMetaData {
  const topLevel = new Set(parquetSchema(metadata).children.map((child) => child.element));
  return {
    ...metadata,
    schema: metadata.schema.map((element) =>
      topLevel.has(element) && !element.num_children && decimalScaleOf(element) !== undefined
        ? { ...element, converted_type: undefined, logical_type: undefined }
        : element,
    ),
  };
}

/** Checks the framing by hand before hyparquet sees the footer, so a hostile length cannot make it allocate. */
async function readMetadata(file: SourceFile, handle: FileHandle): Promise<FileMetaData> {
  const size = file.byteSize;
  if (size < 12) throw notParquet(file, 'it is too short to be a Parquet file');
  const head = await readExactly(handle, 0, 4);
  const tail = await readExactly(handle, size - 8, 8);
  if (head.toString('latin1') !== MAGIC || tail.toString('latin1', 4) !== MAGIC) {
    throw notParquet(file, 'the PAR1 magic bytes are missing');
  }
  const footerLength = tail.readUInt32LE(0);
  if (footerLength > PARQUET_MAX_FOOTER_BYTES) {
    throw notParquet(
      file,
      `its footer is ${footerLength} bytes, over the limit of ${PARQUET_MAX_FOOTER_BYTES}`,
    );
  }
  if (footerLength > size - 12) throw notParquet(file, 'its footer length points outside the file');
  const footer = await readExactly(handle, size - 8 - footerLength, footerLength + 8);
  try {
    return withReadableCodecs(file, parquetMetadata(footer, { geoparquet: false }), footer, compressors);
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw notParquet(file, 'its footer cannot be decoded', error);
  }
}

/**
 * What every pass over the file needs: top-level column names, which are leaves (`flat`, see unreadCell), which
 * are read as day numbers, which are DECIMAL (their scale), read from `unscaledMetadata`, and which are TIME.
 */
interface FileLayout {
  readonly file: SourceFile;
  readonly metadata: FileMetaData;
  readonly columns: readonly string[];
  readonly flat: readonly boolean[];
  readonly epochDays: readonly boolean[];
  readonly decimalScales: readonly (number | undefined)[];
  readonly timeUnits: readonly (TimeUnit | undefined)[];
  readonly unscaledMetadata: FileMetaData;
}

/** Rows in batches of at most BATCH_ROWS, transposed from the decoded columns of one row group at a time. */
async function* iterateBatches(layout: FileLayout): AsyncGenerator<unknown[][]> {
  const width = layout.columns.length;
  for await (const group of iterateRowGroups(layout)) {
    const cells = group.columns.map((column, c) => (layout.epochDays[c] ? daysToDates(column) : column));
    for (let offset = 0; offset < group.rowCount; offset += BATCH_ROWS) {
      const end = Math.min(offset + BATCH_ROWS, group.rowCount);
      const batch: unknown[][] = new Array(end - offset);
      for (let row = offset; row < end; row++) {
        const values: unknown[] = new Array(width);
        for (let column = 0; column < width; column++) values[column] = cells[column]?.[row] ?? null;
        batch[row - offset] = values;
      }
      yield batch;
    }
  }
}

/** The Dates hyparquet itself would have made of DATE day numbers. */
function daysToDates(days: ArrayLike<unknown>): unknown[] {
  return Array.from(days, (day) => (typeof day === 'number' ? new Date(day * DAY_MS) : day));
}

/** One ColumnBatch per row group, cells as decoded (a missing cell is null). */
async function* iterateRowGroups(layout: FileLayout): AsyncGenerator<ColumnBatch> {
  const { file, metadata } = layout;
  await assertUnchanged(file);
  const handle = await openSourceFile(file);
  try {
    const epochDays = layout.epochDays.some(Boolean) ? layout.epochDays : undefined;
    let groupStart = 0;
    for (const [groupIndex, group] of metadata.row_groups.entries()) {
      const groupRows = Number(group.num_rows);
      const data = await readRowGroup(layout, handle, groupIndex, groupStart, groupRows);
      yield epochDays
        ? { rowCount: groupRows, columns: data, epochDays }
        : { rowCount: groupRows, columns: data };
      groupStart += groupRows;
    }
    // Row groups read before and after an in-place rewrite began would mix two versions of the file.
    await assertUnchanged(file);
  } finally {
    await handle.close();
  }
}

/**
 * Column-oriented read of one row group through `onChunk`: hyparquet skips its own row transposition, loading
 * takes the columns as they are (rows are only built for `batches`), and one row group is held at a time. DATE
 * columns are decoded in a pass of their own, with days kept as numbers; DECIMAL columns in another, as their
 * unscaled integers (bytes not decoded as UTF-8), turned into exact decimal text here.
 */
async function readRowGroup(
  layout: FileLayout,
  handle: FileHandle,
  groupIndex: number,
  groupStart: number,
  groupRows: number,
): Promise<ArrayLike<unknown>[]> {
  const { file, metadata, columns, epochDays, decimalScales, timeUnits } = layout;
  const extents = chunkExtents(metadata, groupIndex);
  const chunks = new Map<string, { rowStart: number; data: ArrayLike<unknown> }[]>();
  const dayColumns = columns.filter((_, c) => epochDays[c]);
  const decimalColumns = columns.filter((_, c) => decimalScales[c] !== undefined);
  const passes: Pick<ParquetReadOptions, 'columns' | 'parsers' | 'metadata' | 'utf8'>[] =
    dayColumns.length === 0 && decimalColumns.length === 0
      ? [{ parsers: EXACT_PARSERS }]
      : [
          {
            columns: columns.filter((_, c) => !epochDays[c] && decimalScales[c] === undefined),
            parsers: EXACT_PARSERS,
          },
          { columns: dayColumns, parsers: { dateFromDays: (day: number) => day } },
          { columns: decimalColumns, metadata: layout.unscaledMetadata, utf8: false },
        ];
  try {
    for (const pass of passes) {
      if (pass.columns?.length === 0) continue;
      // Each pass slices the file anew, so each registers the compressed pages it will decompress anew.
      const compressed = new CompressedPages();
      await parquetRead({
        metadata,
        ...pass,
        file: fileBuffer(handle, file.byteSize, (bytes, start) =>
          checkPages(file, groupIndex, extents, bytes, start, compressed),
        ),
        rowStart: groupStart,
        rowEnd: groupStart + groupRows,
        compressors: checkingCompressors(compressors, compressed, (where, why, code = 'ingest.parse_error') =>
          pageError(file, code, `${where ?? `row group ${groupIndex + 1}, a page`} ${why}`),
        ),
        geoparquet: false,
        onChunk(chunk) {
          const list = chunks.get(chunk.columnName) ?? [];
          list.push({ rowStart: chunk.rowStart, data: chunk.columnData });
          chunks.set(chunk.columnName, list);
        },
      });
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw notParquet(file, `row group ${groupIndex + 1} cannot be decoded`, error);
  }
  return columns.map((name, c) => {
    const cells = assemble(chunks.get(name) ?? [], groupStart, groupRows);
    if (cells === undefined) {
      // A column chunk left out of the row group, or pages holding fewer or more values than its rows.
      throw notParquet(
        file,
        `row group ${groupIndex + 1} does not hold one value per row for column ${JSON.stringify(name)}`,
      );
    }
    const unread = layout.flat[c] ? unreadCell(file, groupIndex, groupStart, name, cells) : undefined;
    if (unread !== undefined) throw unread;
    const scale = decimalScales[c];
    const unit = timeUnits[c];
    if (unit !== undefined) return timesOfDay(cells, unit);
    return scale === undefined ? cells : decimalTexts(cells, scale);
  });
}

/** One column's chunks as one array of the row group's cells, or undefined unless they hold exactly one per row. */
function assemble(
  list: readonly { rowStart: number; data: ArrayLike<unknown> }[],
  groupStart: number,
  groupRows: number,
): ArrayLike<unknown> | undefined {
  let total = 0;
  for (const { data } of list) total += data.length;
  if (total !== groupRows) return undefined;
  const only = list[0];
  if (
    list.length === 1 &&
    only !== undefined &&
    only.rowStart === groupStart &&
    only.data.length === groupRows
  ) {
    return only.data;
  }
  const assembled: unknown[] = new Array(groupRows).fill(null);
  let covered = 0;
  for (const { rowStart, data } of list) {
    for (let index = 0; index < data.length; index++) {
      const at = rowStart - groupStart + index;
      if (at >= 0 && at < groupRows) {
        assembled[at] = data[index];
        covered += 1;
      }
    }
  }
  return covered === groupRows ? assembled : undefined;
}

/** An AsyncBuffer over one open handle: positioned reads, no stream per slice, each slice shown to `inspect`. */
function fileBuffer(
  handle: FileHandle,
  size: number,
  inspect: (bytes: Uint8Array, start: number) => void,
): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end = size): Promise<ArrayBuffer> {
      // A chunk range from the footer past the end of the file would be allocated before the read failed.
      if (!(start >= 0 && start <= end && end <= size)) {
        throw new Error(`bytes ${start} to ${end} are outside the file`);
      }
      const bytes = new ArrayBuffer(end - start);
      await readInto(handle, start, new Uint8Array(bytes));
      inspect(new Uint8Array(bytes), start);
      return bytes;
    },
  };
}

async function readExactly(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  await readInto(handle, position, bytes);
  return bytes;
}

async function readInto(handle: FileHandle, position: number, target: Uint8Array): Promise<void> {
  let filled = 0;
  while (filled < target.length) {
    const { bytesRead } = await handle.read(target, filled, target.length - filled, position + filled);
    if (bytesRead === 0) throw new Error('unexpected end of file');
    filled += bytesRead;
  }
}

async function withFile<T>(file: SourceFile, use: (handle: FileHandle) => Promise<T>): Promise<T> {
  const handle = await openSourceFile(file);
  try {
    return await use(handle);
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw notParquet(file, 'it cannot be read', error);
  } finally {
    await handle.close();
  }
}

function notParquet(file: SourceFile, why: string, cause?: unknown): SourceError {
  return sourceError(
    file,
    'ingest.parse_error',
    `${file.displayPath} is not a readable Parquet file: ${why}`,
    { cause },
  );
}
