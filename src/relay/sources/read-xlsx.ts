// Reads one sheet of an XLSX workbook: the file is read here, and checked and decoded in a thread of its own
// (decode-xlsx-sheet.ts, through decode-xlsx-in-worker.ts), so the relay keeps serving reads while a large workbook
// loads. Its rows are then handed over a batch at a time, each batch in a turn of the event loop of its own.
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { xlsxDecoder } from './decode-xlsx-in-worker.ts';
import { columnNumber, type SheetRegion } from './find-formula-cell.ts';
import type { ColumnBatch, HashedSourceRows, XlsxFormat } from './open-file-source.ts';
import { SourceError } from './source-error.ts';
import {
  BATCH_ROWS,
  fileAccessError,
  openSourceFile,
  readSized,
  type SourceFile,
  sourceError,
} from './source-file.ts';
import { type PackedSheet, unpackColumns, unpackRows } from './xlsx-cells.ts';

const RANGE = /^([A-Z]+)([0-9]+):([A-Z]+)([0-9]+)$/;

/**
 * Cells are string (exactly as stored, as CSV keeps them) | number | boolean | Date | null (an empty cell or an
 * empty string). A cell is a Date when it carries a date number format or is a `t="d"` ISO date. A date stored as
 * a plain number arrives as its Excel serial, and turning that into a date for `date`/`timestamp` columns is the
 * store's job; in a workbook using the 1904 date system such numbers arrive as Date1904Number, which carries that
 * epoch to the store. Rows empty across the region are skipped. The file-size guard bounds the workbook, so it is
 * read whole.
 */
export async function readXlsx(file: SourceFile, format: XlsxFormat): Promise<HashedSourceRows> {
  const region = sheetRegion(file, format);
  const { bytes, contentHash } = await readWhole(file);
  const sheet = await xlsxDecoder.decode(file, bytes, format.sheet, region);
  return {
    columns: sheet.columns,
    // Empty rows are left out, yet data rows are counted down the sheet from the header.
    rowNumber: (index) => (sheet.sheetRows[index] ?? index + region.firstRow + 1) - region.firstRow,
    byteSize: file.byteSize,
    contentHash,
    batches: inBatches(sheet, (from, to) => unpackRows(sheet, from, to)),
    columnBatches: inBatches(
      sheet,
      (from, to): ColumnBatch => ({ rowCount: to - from, columns: unpackColumns(sheet, from, to) }),
    ),
  };
}

/** Batches of the sheet's rows; each after the first waits for a turn of the event loop, so reads go on between. */
function inBatches<T>(sheet: PackedSheet, cut: (from: number, to: number) => T): AsyncIterable<T> {
  return {
    async *[Symbol.asyncIterator]() {
      for (let offset = 0; offset < sheet.rowCount; offset += BATCH_ROWS) {
        if (offset > 0) await nextTurn();
        yield cut(offset, Math.min(offset + BATCH_ROWS, sheet.rowCount));
      }
    },
  };
}

/** The header is the first row of the region: `header_row`, or the first row of `data_range` if that is lower. */
function sheetRegion(file: SourceFile, format: XlsxFormat): SheetRegion {
  if (format.data_range === undefined) {
    return { firstRow: format.header_row, lastRow: Infinity, firstColumn: 1, lastColumn: Infinity };
  }
  const match = RANGE.exec(format.data_range);
  const [, fromColumn, fromRow, toColumn, toRow] = match ?? [];
  if (fromColumn === undefined || fromRow === undefined || toColumn === undefined || toRow === undefined) {
    throw sourceError(file, 'ingest.parse_error', `data_range ${format.data_range} is not an A1 range`);
  }
  const region = {
    firstRow: Math.max(Number(fromRow), format.header_row),
    lastRow: Number(toRow),
    firstColumn: columnNumber(fromColumn),
    lastColumn: columnNumber(toColumn),
  };
  if (region.firstRow > region.lastRow || region.firstColumn > region.lastColumn || Number(fromRow) < 1) {
    throw sourceError(
      file,
      'ingest.parse_error',
      `data_range ${format.data_range} with header_row ${format.header_row} selects no cells`,
    );
  }
  return region;
}

/** The file's bytes, and their SHA-256 (hex), hashed as they are read: exactly the bytes decoded. */
async function readWhole(file: SourceFile): Promise<{ bytes: Buffer; contentHash: string }> {
  const handle = await openSourceFile(file);
  try {
    // Exactly the size that passed the guard: a file that grew meanwhile is not read past it.
    const bytes = Buffer.alloc(file.byteSize);
    const hash = createHash('sha256');
    await readSized(file, handle, (chunk, position) => {
      chunk.copy(bytes, position);
      hash.update(chunk);
    });
    return { bytes, contentHash: hash.digest('hex') };
  } catch (error) {
    throw error instanceof SourceError ? error : fileAccessError(file, error);
  } finally {
    await handle.close();
  }
}
