// A decoded sheet's cells packed column by column, to cross from the decoder thread to the main thread: typed
// arrays are moved (transferred) and a few long strings copied whole, where a structured clone of the rows would
// make the main thread build every cell of the sheet in one stretch. Cells are unpacked a batch at a time.
import { Date1904Number } from '../store/coerce-cell.ts';
import type { DecodedSheet } from './decode-xlsx-sheet.ts';

const NULL = 0;
const TEXT = 1;
const NUMBER = 2;
const TRUE = 3;
const FALSE = 4;
const DATE = 5;
const SERIAL_1904 = 6;

/** Text cells are joined into strings of about this many characters, far below V8's longest string. */
const TEXT_CHUNK_CHARS = 1 << 24;

export interface PackedColumn {
  /** Per row: which kind of cell (NULL, TEXT, …). */
  readonly kinds: Uint8Array;
  /** Per row: a number cell, a Date's time (NaN for an invalid Date), a 1904 workbook's number. */
  readonly numbers: Float64Array;
  /** The text cells, joined in row order into chunks. */
  readonly texts: string[];
  /** The row each chunk of `texts` starts at. */
  readonly chunkRows: number[];
  /** Per row: where its text ends in its chunk (it starts where the row before ends, or at 0 in a new chunk). */
  readonly textEnds: Uint32Array;
}

export interface PackedSheet {
  readonly columns: string[];
  readonly rowCount: number;
  readonly cells: PackedColumn[];
  /** The sheet row (1-based) of each row. */
  readonly sheetRows: Uint32Array;
}

/** The sheet packed, and the buffers to transfer with it. */
export function packSheet(
  sheet: DecodedSheet,
  chunkChars = TEXT_CHUNK_CHARS,
): { packed: PackedSheet; transfer: ArrayBuffer[] } {
  const rowCount = sheet.rows.length;
  const cells = sheet.columns.map((_, column) => packColumn(sheet.rows, column, chunkChars));
  const sheetRows = Uint32Array.from(sheet.sheetRows);
  const transfer = [sheetRows.buffer as ArrayBuffer];
  for (const { kinds, numbers, textEnds } of cells) {
    transfer.push(kinds.buffer as ArrayBuffer, numbers.buffer as ArrayBuffer, textEnds.buffer as ArrayBuffer);
  }
  return { packed: { columns: sheet.columns, rowCount, cells, sheetRows }, transfer };
}

function packColumn(rows: readonly unknown[][], column: number, chunkChars: number): PackedColumn {
  const count = rows.length;
  const kinds = new Uint8Array(count);
  const numbers = new Float64Array(count);
  const textEnds = new Uint32Array(count);
  const texts: string[] = [];
  const chunkRows: number[] = [];
  let chunk: string[] = [];
  let length = 0;
  for (let row = 0; row < count; row++) {
    const value = (rows[row] as unknown[])[column];
    if (typeof value === 'string') {
      if (length > 0 && length + value.length > chunkChars) {
        texts.push(chunk.join(''));
        chunk = [];
        length = 0;
      }
      if (length === 0 && chunkRows.length === texts.length) chunkRows.push(row);
      kinds[row] = TEXT;
      chunk.push(value);
      length += value.length;
    } else if (typeof value === 'number') {
      kinds[row] = NUMBER;
      numbers[row] = value;
    } else if (typeof value === 'boolean') kinds[row] = value ? TRUE : FALSE;
    else if (value instanceof Date) {
      kinds[row] = DATE;
      numbers[row] = value.getTime();
    } else if (value instanceof Date1904Number) {
      kinds[row] = SERIAL_1904;
      numbers[row] = value.value;
    } else if (value === null || value === undefined) kinds[row] = NULL;
    else throw new TypeError(`a cell of kind ${typeof value} cannot be passed on`);
    textEnds[row] = length;
  }
  if (chunkRows.length > texts.length) texts.push(chunk.join(''));
  return { kinds, numbers, texts, chunkRows, textEnds };
}

/** Rows `from` to `to` (exclusive), cut per column: one array of cells per column. */
export function unpackColumns(sheet: PackedSheet, from: number, to: number): unknown[][] {
  return sheet.cells.map((column) => unpackColumn(column, from, to));
}

/** Rows `from` to `to` (exclusive), as arrays of cells aligned with the columns. */
export function unpackRows(sheet: PackedSheet, from: number, to: number): unknown[][] {
  const columns = unpackColumns(sheet, from, to);
  return Array.from({ length: to - from }, (_, row) => columns.map((cells) => cells[row]));
}

function unpackColumn(packed: PackedColumn, from: number, to: number): unknown[] {
  const { kinds, numbers, texts, chunkRows, textEnds } = packed;
  const cells = new Array<unknown>(to - from);
  // The chunk holding the first text cell from `from` on: the last one starting at or before it.
  let chunk = 0;
  while (chunk + 1 < chunkRows.length && (chunkRows[chunk + 1] as number) <= from) chunk++;
  for (let row = from; row < to; row++) {
    switch (kinds[row]) {
      case TEXT: {
        if (chunk + 1 < chunkRows.length && chunkRows[chunk + 1] === row) chunk++;
        const start = row === chunkRows[chunk] ? 0 : (textEnds[row - 1] as number);
        cells[row - from] = (texts[chunk] as string).slice(start, textEnds[row]);
        break;
      }
      case NUMBER:
        cells[row - from] = numbers[row];
        break;
      case TRUE:
        cells[row - from] = true;
        break;
      case FALSE:
        cells[row - from] = false;
        break;
      case DATE:
        cells[row - from] = new Date(numbers[row] as number);
        break;
      case SERIAL_1904:
        cells[row - from] = new Date1904Number(numbers[row] as number);
        break;
      default:
        cells[row - from] = null;
    }
  }
  return cells;
}
