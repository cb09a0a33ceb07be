// The CPU-bound part of reading an XLSX sheet, run in the decoder thread (xlsx-worker.ts): the checks of the
// sheet's XML (formula, error and merged cells, torn markup, the extent read-excel-file lays out), the decode by
// read-excel-file, the second read of date cells, and the cut to the configured region.
import { readSheet } from 'read-excel-file/node';
import { coerceValue, Date1904Number, excelSerialMs } from '../store/coerce-cell.ts';
import {
  columnLetters,
  findMergedCell,
  findRefusedCell,
  laidOutCells,
  mayHoldIsoDates,
  type SheetRegion,
  walkCells,
} from './find-formula-cell.ts';
import { decodableWorkbook, isStringTooLong, openXlsxPackage, partTooLarge } from './open-xlsx-package.ts';
import { SHEET_MAX_TAG_CHARS, SHEET_MAX_TEXT_CHARS, sheetMarkupFault } from './scan-sheet-markup.ts';
import type { SourceError } from './source-error.ts';
import { type SourceFile, sourceError } from './source-file.ts';

export const XLSX_MAX_CELLS = 10_000_000;
// read-excel-file counts every serial from 1899-12-30, so its Dates before 1900-03-01 are a day early.
const EXCEL_FOLD = Date.UTC(1900, 2, 1);

export interface DecodedSheet {
  readonly columns: string[];
  /** Cells as readXlsx describes them; numbers of a 1904 workbook as Date1904Number. */
  readonly rows: unknown[][];
  /** The sheet row (1-based) of each row kept. */
  readonly sheetRows: number[];
}

/** Decodes the sheet `sheet` (the first when undefined) of the workbook `bytes`; throws SourceError. */
export async function decodeXlsxSheet(
  file: SourceFile,
  bytes: Buffer,
  sheet: string | undefined,
  region: SheetRegion,
): Promise<DecodedSheet> {
  const { sheetName, date1904, isoDates, decodable } = checkedSheet(file, bytes, sheet, region);
  const decoded = await decodeSheet(file, decodable, sheetName, region);
  // read-excel-file takes only date1904="1" for the 1904 system, not "true": such workbooks are read again too.
  if (datesToReread(decoded, region, isoDates || date1904))
    rereadDates(file, bytes, sheetName, decoded, region, date1904);
  return cutRegion(file, decoded, region, date1904);
}

/**
 * Picks the sheet and scans its XML for formula and error cells; only the name, the date system, whether it may
 * have `t="d"` cells and the workbook for read-excel-file are kept so the XML text can be collected.
 */
function checkedSheet(
  file: SourceFile,
  bytes: Buffer,
  sheet: string | undefined,
  region: SheetRegion,
): { sheetName: string; date1904: boolean; isoDates: boolean; decodable: Buffer } {
  const xlsx = openXlsxPackage(file, bytes, sheet);
  const { sheetName, sheetXml, date1904 } = xlsx;
  rejectTornMarkup(file, sheetName, sheetXml);
  rejectCells(file, sheetName, sheetXml, region);
  rejectMergedCells(file, sheetName, sheetXml, region);
  rejectSparseSheet(file, sheetName, sheetXml);
  const decodable = decodableWorkbook(file, bytes, xlsx);
  return { sheetName, date1904, isoDates: mayHoldIsoDates(sheetXml), decodable };
}

/** Run first: read-excel-file would take minutes over a tag left open or a tag or text run megabytes long. */
function rejectTornMarkup(file: SourceFile, sheetName: string, sheetXml: string): void {
  const fault = sheetMarkupFault(sheetXml);
  if (fault === undefined) return;
  if (fault.kind === 'not_well_formed') throw notWellFormed(file, sheetName, new Error(fault.why));
  const limit = fault.kind === 'tag' ? SHEET_MAX_TAG_CHARS : SHEET_MAX_TEXT_CHARS;
  const what = fault.kind === 'tag' ? 'a tag' : 'a text run';
  throw sourceError(
    file,
    'ingest.parse_error',
    `sheet ${JSON.stringify(sheetName)} has ${what} of ${fault.chars} characters, over the limit of ${limit}`,
  );
}

function rejectCells(file: SourceFile, sheetName: string, sheetXml: string, region: SheetRegion): void {
  let refused: ReturnType<typeof findRefusedCell>;
  try {
    refused = findRefusedCell(sheetXml, region);
  } catch (error) {
    throw notWellFormed(file, sheetName, error);
  }
  if (refused === undefined) return;
  const dataRow = refused.row - region.firstRow;
  const where = { cell: refused.ref, ...(dataRow > 0 ? { row: dataRow } : {}) };
  const sheet = `sheet ${JSON.stringify(sheetName)}`;
  if (refused.kind === 'formula') {
    throw sourceError(
      file,
      'ingest.formula_cell',
      `${sheet} has a formula in cell ${refused.ref}; formulas are not evaluated, save the values instead`,
      where,
    );
  }
  // read-excel-file reads error cells as empty: #N/A would be served as "no value". Error codes are short
  // `#NAME?` words; anything else in the cell is not echoed.
  const error = /^#[A-Z0-9_/!?.]{1,15}$/i.test(refused.error?.trim() ?? '')
    ? ` ${refused.error?.trim()}`
    : '';
  throw sourceError(
    file,
    'ingest.error_cell',
    `${sheet} has the error value${error} in cell ${refused.ref}; correct the cell or clear it`,
    where,
  );
}

/** A merged cell would be served empty where Excel shows the value of the merge's first cell. */
function rejectMergedCells(file: SourceFile, sheetName: string, sheetXml: string, region: SheetRegion): void {
  const merged = findMergedCell(sheetXml, region);
  if (merged === undefined) return;
  const dataRow = merged.row - region.firstRow;
  throw sourceError(
    file,
    'ingest.merged_cell',
    `sheet ${JSON.stringify(sheetName)} has cells merged in ${merged.range}: only its first cell holds the value, so ${merged.ref} would be served empty; unmerge them and fill each cell`,
    { cell: merged.ref, ...(dataRow > 0 ? { row: dataRow } : {}) },
  );
}

/** Checked before decoding: read-excel-file would fill the whole sheet extent with nulls before any cap applies. */
function rejectSparseSheet(file: SourceFile, sheetName: string, sheetXml: string): void {
  let extent: { rows: number; columns: number };
  try {
    extent = laidOutCells(sheetXml, XLSX_MAX_CELLS);
  } catch (error) {
    throw notWellFormed(file, sheetName, error);
  }
  const cells = extent.rows * extent.columns;
  if (cells <= XLSX_MAX_CELLS) return;
  throw sourceError(
    file,
    'ingest.column_limit',
    `sheet ${JSON.stringify(sheetName)} spans ${cells} cells up to its last filled cell (${extent.columns} columns × ${extent.rows} rows), over the limit of ${XLSX_MAX_CELLS}`,
  );
}

function notWellFormed(file: SourceFile, sheetName: string, cause: unknown): SourceError {
  const detail = `sheet ${JSON.stringify(sheetName)} is not well-formed XML`;
  return sourceError(file, 'ingest.parse_error', detail, { cause });
}

/**
 * Whether the Date cells must be read again (see rereadDates), `always` if there are any: a `t="d"` cell may be
 * off by the host's offset, and a serial's Date off by a millisecond. A Date on a whole second is what rounding
 * gives too, unless its serial lies 0.5 ms to 1 ms past that second, which typed dates and times never do: so a
 * sheet whose Dates all fall on whole seconds (dates without a time, the usual case) and after February 1900 is
 * spared a second parse.
 */
function datesToReread(sheet: readonly unknown[][], region: SheetRegion, always: boolean): boolean {
  const end = Math.min(region.lastRow, sheet.length);
  for (let index = region.firstRow - 1; index < end; index++) {
    const row = sheet[index] ?? [];
    const last = Math.min(region.lastColumn, row.length);
    for (let column = region.firstColumn - 1; column < last; column++) {
      const value = row[column];
      if (value instanceof Date && (always || value.getTime() % 1000 !== 0 || value.getTime() < EXCEL_FOLD))
        return true;
    }
  }
  return false;
}

/**
 * read-excel-file rounds date-formatted serials down to the millisecond (2024-01-01 00:00:02, stored as
 * 45292.000023148146, becomes 00:00:01.999) and reads `t="d"` text without an offset in the host's time zone.
 * So the Date cells are read again from the sheet XML (inflated once more rather than kept through the decode):
 * serials as the store converts plain ones (excelSerialMs, the workbook's epoch), ISO text as the store reads a
 * timestamp (UTC without an offset). Text that is no such timestamp is given as the text.
 */
function rereadDates(
  file: SourceFile,
  bytes: Buffer,
  sheetName: string,
  sheet: unknown[][],
  region: SheetRegion,
  date1904: boolean,
): void {
  const { sheetXml } = openXlsxPackage(file, bytes, sheetName);
  try {
    walkCells(sheetXml, region, (cell) => {
      const row = sheet[cell.row - 1];
      if (row === undefined || !(row[cell.column - 1] instanceof Date) || cell.value === undefined)
        return true;
      if (cell.type === 'd') {
        const ms = coerceValue(cell.value, 'timestamp', false);
        row[cell.column - 1] = typeof ms === 'number' ? new Date(ms) : cell.value;
      } else {
        row[cell.column - 1] = new Date(excelSerialMs(Number(cell.value), date1904));
      }
      return true;
    });
  } catch (error) {
    throw notWellFormed(file, sheetName, error);
  }
}

/** What read-excel-file's complaint about one cell (`<c/> at row 2, col 3: VALUE_INVALID`) says. */
const CELL_PROBLEM = /^<c\/> at row (\d+), col (\d+): ([A-Z_]+)$/;
const CELL_PROBLEMS: Readonly<Record<string, string>> = {
  VALUE_INVALID:
    'holds a value that cannot be read as its type (such as a shared string index past the shared strings, or a number that is not one)',
  VALUE_MISSING: 'has a type that needs a value, and none',
  FORMAT_INVALID: 'refers to a style the workbook does not hold',
  TYPE_INVALID: 'has a cell type XLSX does not define',
};

async function decodeSheet(
  file: SourceFile,
  bytes: Buffer,
  sheetName: string,
  region: SheetRegion,
): Promise<unknown[][]> {
  try {
    // Strings as stored: read-excel-file trims them by default (and so reads " " as empty), where CSV keeps them.
    return (await readSheet(bytes, sheetName, { trim: false })) as unknown[][];
  } catch (error) {
    const [, row, column, problem] = CELL_PROBLEM.exec(error instanceof Error ? error.message : '') ?? [];
    if (row !== undefined && column !== undefined && problem !== undefined) {
      const cell = `${columnLetters(Number(column))}${row}`;
      const dataRow = Number(row) - region.firstRow;
      const what = CELL_PROBLEMS[problem] ?? `cannot be read (${problem})`;
      const detail = `${file.displayPath} is not a readable XLSX file: sheet ${JSON.stringify(sheetName)} cannot be decoded: cell ${cell} ${what}`;
      throw sourceError(file, 'ingest.parse_error', detail, {
        cell,
        ...(dataRow > 0 ? { row: dataRow } : {}),
        cause: error,
      });
    }
    // read-excel-file decodes every XML part of the workbook; those read here already fit in a string.
    if (isStringTooLong(error)) throw partTooLarge(file, 'one of its XML parts', error);
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
  date1904: boolean,
): { columns: string[]; rows: unknown[][]; sheetRows: number[] } {
  const header = sheet[region.firstRow - 1];
  const end = Math.min(region.lastRow, sheet.length);
  const from = region.firstColumn - 1;
  let width = Number.isFinite(region.lastColumn) ? region.lastColumn - from : 0;
  if (!Number.isFinite(region.lastColumn)) {
    for (let index = region.firstRow - 1; index < end; index++) {
      width = Math.max(width, lastFilled(sheet[index] ?? []) + 1 - from);
    }
  }
  if (header === undefined || width <= 0) return { columns: [], rows: [], sheetRows: [] };
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
  // The sheet row (1-based) of each row kept.
  const sheetRows: number[] = [];
  for (let index = region.firstRow; index < end; index++) {
    const source = sheet[index] ?? [];
    const row = Array.from({ length: width }, (_, column) => source[from + column] ?? null);
    if (!row.some((value) => value !== null)) continue;
    if (date1904) {
      for (let column = 0; column < width; column++) {
        const value = row[column];
        if (typeof value === 'number') row[column] = new Date1904Number(value);
      }
    }
    rows.push(row);
    sheetRows.push(index + 1);
  }
  return { columns, rows, sheetRows };
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
