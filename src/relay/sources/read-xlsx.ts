// Reads one sheet of an XLSX workbook with read-excel-file, after refusing formula cells inside the data region.
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { readSheet } from 'read-excel-file/node';
import { columnNumber, findFormulaCell, type SheetRegion } from './find-formula-cell.ts';
import type { SourceRows, XlsxFormat } from './open-file-source.ts';
import { openXlsxPackage } from './open-xlsx-package.ts';
import { SourceError } from './source-error.ts';
import { BATCH_ROWS, fileAccessError, type SourceFile, sourceError } from './source-file.ts';

export const XLSX_MAX_CELLS = 10_000_000;
const RANGE = /^([A-Z]+)([0-9]+):([A-Z]+)([0-9]+)$/;

/**
 * Cells are what read-excel-file gives: string (trimmed) | number | boolean | Date | null. A cell is a Date only
 * when it carries a date number format; a date stored as a plain number arrives as its Excel serial, and turning
 * that into a date for `date`/`timestamp` columns is the store's job. Rows empty across the region are skipped.
 * The file-size guard bounds the workbook, so it is read whole.
 */
export async function readXlsx(file: SourceFile, format: XlsxFormat): Promise<SourceRows> {
  const region = sheetRegion(file, format);
  const bytes = await readWhole(file);
  const sheetName = checkedSheetName(file, bytes, format.sheet, region);
  const sheet = await decodeSheet(file, bytes, sheetName);
  const { columns, rows } = cutRegion(file, sheet, region);
  return {
    columns,
    byteSize: file.byteSize,
    contentHash: createHash('sha256').update(bytes).digest('hex'),
    batches: {
      async *[Symbol.asyncIterator]() {
        for (let offset = 0; offset < rows.length; offset += BATCH_ROWS) {
          yield rows.slice(offset, offset + BATCH_ROWS);
        }
      },
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

/** Picks the sheet and scans its XML for formulas; only the name is kept so the XML text can be collected. */
function checkedSheetName(
  file: SourceFile,
  bytes: Buffer,
  sheet: string | undefined,
  region: SheetRegion,
): string {
  const { sheetName, sheetXml } = openXlsxPackage(file, bytes, sheet);
  rejectFormulas(file, sheetName, sheetXml, region);
  return sheetName;
}

function rejectFormulas(file: SourceFile, sheetName: string, sheetXml: string, region: SheetRegion): void {
  let formula: ReturnType<typeof findFormulaCell>;
  try {
    formula = findFormulaCell(sheetXml, region);
  } catch (error) {
    const detail = `sheet ${JSON.stringify(sheetName)} is not well-formed XML`;
    throw sourceError(file, 'ingest.parse_error', detail, { cause: error });
  }
  if (formula === undefined) return;
  const dataRow = formula.row - region.firstRow;
  throw sourceError(
    file,
    'ingest.formula_cell',
    `sheet ${JSON.stringify(sheetName)} has a formula in cell ${formula.ref}; formulas are not evaluated, save the values instead`,
    { cell: formula.ref, ...(dataRow > 0 ? { row: dataRow } : {}) },
  );
}

async function decodeSheet(
  file: SourceFile,
  bytes: Buffer,
  sheetName: string,
): Promise<readonly unknown[][]> {
  try {
    return (await readSheet(bytes, sheetName)) as unknown[][];
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const why =
      name === 'InvalidInputError'
        ? 'it is not an XLSX workbook'
        : `sheet ${JSON.stringify(sheetName)} cannot be decoded`;
    throw sourceError(file, 'ingest.parse_error', `${file.displayPath} is not a readable XLSX file: ${why}`, {
      cause: error,
    });
  }
}

/** read-excel-file returns rows from sheet row 1 and column A, so sheet coordinates index it directly. */
function cutRegion(
  file: SourceFile,
  sheet: readonly unknown[][],
  region: SheetRegion,
): { columns: string[]; rows: unknown[][] } {
  const header = sheet[region.firstRow - 1];
  const end = Math.min(region.lastRow, sheet.length);
  const from = region.firstColumn - 1;
  let width = Number.isFinite(region.lastColumn) ? region.lastColumn - from : 0;
  if (!Number.isFinite(region.lastColumn)) {
    for (let index = region.firstRow - 1; index < end; index++) {
      width = Math.max(width, lastFilled(sheet[index] ?? []) + 1 - from);
    }
  }
  if (header === undefined || width <= 0) return { columns: [], rows: [] };
  const dataRows = end - region.firstRow;
  if (dataRows * width > XLSX_MAX_CELLS) {
    throw sourceError(
      file,
      'ingest.column_limit',
      `the data region has ${dataRows * width} cells (${width} columns × ${dataRows} rows), over the limit of ${XLSX_MAX_CELLS}`,
    );
  }
  const columns = Array.from({ length: width }, (_, index) => headerName(header[from + index], index));
  const rows: unknown[][] = [];
  for (let index = region.firstRow; index < end; index++) {
    const source = sheet[index] ?? [];
    const row = Array.from({ length: width }, (_, column) => source[from + column] ?? null);
    if (row.some((value) => value !== null)) rows.push(row);
  }
  return { columns, rows };
}

function lastFilled(row: readonly unknown[]): number {
  for (let index = row.length - 1; index >= 0; index--) {
    if (row[index] !== null && row[index] !== undefined) return index;
  }
  return -1;
}

/** Header cells are usually text; other values are spelled out, and an empty header cell gets `column_<n>`. */
function headerName(value: unknown, index: number): string {
  if (value instanceof Date) return value.toISOString();
  if (value === null || value === undefined || value === '') return `column_${index + 1}`;
  return String(value);
}

async function readWhole(file: SourceFile): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(file.absolutePath, 'r');
  } catch (error) {
    throw fileAccessError(file, error);
  }
  try {
    // Exactly the size that passed the guard: a file that grew meanwhile is not read past it.
    const bytes = Buffer.alloc(file.byteSize);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) {
        throw sourceError(file, 'ingest.file_changed', `${file.displayPath} changed while it was being read`);
      }
      filled += bytesRead;
    }
    return bytes;
  } catch (error) {
    throw error instanceof SourceError ? error : fileAccessError(file, error);
  } finally {
    await handle.close();
  }
}
