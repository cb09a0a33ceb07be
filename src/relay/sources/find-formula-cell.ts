// Walks the cells of a worksheet's XML inside a region: finds formula and error cells, which read-excel-file does
// not report as such, and gives the raw text of cells whose value it interprets (dates). Also finds merges hiding
// cells of the region, and measures the extent read-excel-file would lay out for the sheet (laidOutCells), which it
// fills before any cap applies.
import { decode, Parser } from 'saxen';

/** 1-based, inclusive; `Infinity` for an open end. */
export interface SheetRegion {
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
}

export interface CellPosition {
  /** A1 reference, e.g. `C7`. */
  readonly ref: string;
  readonly row: number;
  readonly column: number;
}

/** A cell to refuse: it holds a formula (an `<f>`), or an error value (`t="e"`, e.g. `#N/A`). */
export interface RefusedCell extends CellPosition {
  readonly kind: 'formula' | 'error';
  /** The error value as written, for `error`. */
  readonly error?: string | undefined;
}

/** A cell as written in the XML: its `t` attribute, whether it has a formula, and the text of its `<v>`. */
export interface RawCell {
  readonly row: number;
  readonly column: number;
  readonly type: string | undefined;
  readonly formula: boolean;
  /** Undefined when the cell has no `<v>`. */
  readonly value: string | undefined;
}

/** Cheap pre-checks so sheets without any formula or error cell (the usual case) skip the XML walk. */
const MAY_HOLD_FORMULA = /<(?:[A-Za-z_][\w.-]*:)?f[\s/>]/;
const MAY_HOLD_ERROR = /\st\s*=\s*["']e["']/;
const MAY_HOLD_ISO_DATE = /\st\s*=\s*["']d["']/;
const CELL_REF = /^([A-Z]{1,3})([0-9]+)$/;

/** Whether the sheet may have `t="d"` cells (ISO 8601 text dates); false means it has none. */
export function mayHoldIsoDates(sheetXml: string): boolean {
  return MAY_HOLD_ISO_DATE.test(sheetXml);
}

/**
 * The first formula or error cell inside the region, in document order (a formula wins within a cell: saving the
 * values is the first fix). read-excel-file hands back cached values for formulas, and nothing for error cells.
 * Throws the parser's error on XML that is not well-formed.
 */
export function findRefusedCell(sheetXml: string, region: SheetRegion): RefusedCell | undefined {
  if (!MAY_HOLD_FORMULA.test(sheetXml) && !MAY_HOLD_ERROR.test(sheetXml)) return undefined;
  let found: RefusedCell | undefined;
  walkCells(sheetXml, region, (cell) => {
    if (!cell.formula && cell.type !== 'e') return true;
    const { row, column } = cell;
    const ref = `${columnLetters(column)}${row}`;
    found = cell.formula
      ? { kind: 'formula', ref, row, column }
      : { kind: 'error', ref, row, column, error: cell.value };
    return false;
  });
  return found;
}

/**
 * Calls `visit` with each cell inside `region`, in document order, until it returns false; the cell object is
 * reused, so it is valid during the call only. Positions come from the `r` attributes, as read-excel-file takes
 * them. Throws the parser's error on XML that is not well-formed.
 */
export function walkCells(sheetXml: string, region: SheetRegion, visit: (cell: RawCell) => boolean): void {
  const cell: { -readonly [K in keyof RawCell]: RawCell[K] } = {
    row: 0,
    column: 0,
    type: undefined,
    formula: false,
    value: undefined,
  };
  let inCell = false;
  let inValue = false;
  const stop = new Error('walk stopped');
  const parser = new Parser();
  parser.on('openTag', (name, attributes) => {
    const local = name.slice(name.indexOf(':') + 1);
    if (local === 'row') {
      const r = Number(attributes().r);
      cell.row = Number.isInteger(r) && r > 0 ? r : cell.row + 1;
      cell.column = 0;
    } else if (local === 'c') {
      const attrs = attributes();
      const ref = CELL_REF.exec(attrs.r ?? '');
      if (ref?.[1] !== undefined && ref[2] !== undefined) {
        cell.column = columnNumber(ref[1]);
        cell.row = Number(ref[2]);
      } else {
        cell.column += 1;
      }
      inCell = inside(region, cell.row, cell.column);
      cell.type = attrs.t;
      cell.formula = false;
      cell.value = undefined;
    } else if (inCell) {
      if (local === 'f') cell.formula = true;
      else if (local === 'v') {
        inValue = true;
        cell.value = '';
      }
    }
  });
  parser.on('text', (text, decode) => {
    if (inValue) cell.value += decode(text);
  });
  parser.on('closeTag', (name) => {
    const local = name.slice(name.indexOf(':') + 1);
    if (local === 'v') inValue = false;
    else if (local === 'c') {
      const visited = inCell;
      inCell = false;
      inValue = false;
      if (visited && !visit(cell)) throw stop;
    }
  });
  try {
    parser.parse(sheetXml);
  } catch (error) {
    if (error !== stop) throw error;
  }
}

// The search for `ref` stops at the next `<` as well as at `>`: no tag holds a `<` (attribute values cannot), and
// on text where a tag is left open the search from each `<mergeCell` ran to the end of the text (quadratic).
const MERGE_CELL =
  /<(?:[A-Za-z_][\w.-]*:)?mergeCell\s[^<>]*?\bref\s*=\s*(["'])([A-Z]{1,3})([0-9]+)(?::([A-Z]{1,3})([0-9]+))?\1/g;

/** A merge hiding a cell of the region: the merge's A1 range, and the first such cell. */
export interface MergedCell extends CellPosition {
  readonly range: string;
}

/**
 * The first merge (`<mergeCell ref="B3:B4"/>`) with a cell inside the region other than its own first cell. Only
 * that first cell holds the value Excel shows across the merge; read-excel-file reads the others as empty.
 */
export function findMergedCell(sheetXml: string, region: SheetRegion): MergedCell | undefined {
  if (!sheetXml.includes('mergeCell')) return undefined;
  for (const match of sheetXml.matchAll(MERGE_CELL)) {
    const [, , leftLetters = '', topText = '', rightLetters, bottomText] = match;
    const top = Number(topText);
    const left = columnNumber(leftLetters);
    const bottom = bottomText === undefined ? top : Number(bottomText);
    const right = rightLetters === undefined ? left : columnNumber(rightLetters);
    const firstRow = Math.max(top, region.firstRow);
    const lastRow = Math.min(bottom, region.lastRow);
    const firstColumn = Math.max(left, region.firstColumn);
    const lastColumn = Math.min(right, region.lastColumn);
    if (firstRow > lastRow || firstColumn > lastColumn) continue;
    let row = firstRow;
    let column = firstColumn;
    if (row === top && column === left) {
      if (lastColumn > column) column += 1;
      else if (lastRow > row) row += 1;
      else continue;
    }
    const range =
      rightLetters === undefined
        ? `${leftLetters}${topText}`
        : `${leftLetters}${topText}:${rightLetters}${bottomText}`;
    return { range, ref: `${columnLetters(column)}${row}`, row, column };
  }
  return undefined;
}

// Every `r` attribute, prefixed or not (read-excel-file drops prefixes), but not the `xmlns:r` declaration.
const ANY_R_ATTRIBUTE = /(?<!xmlns)[\s:]r\s*=\s*(["'])(.*?)\1/g;
const A1_REF = /^([A-Z]{1,3})([0-9]{1,7})$/;
const ROW_NUMBER = /^[0-9]{1,7}$/;

/**
 * How many cells read-excel-file lays out for the sheet, whatever region is read: an array for every row number up
 * to the highest one named, each padded to the last column holding a value. One far cell (`XFD1048576`) or row
 * number in a small file would make that billions. Plain `r` attributes bound it cheaply; a sheet over `limit` by
 * that bound, or with an `r` in another spelling, is walked the way read-excel-file reads it.
 */
export function laidOutCells(sheetXml: string, limit: number): { rows: number; columns: number } {
  let rows = 0;
  let columns = 1;
  for (const match of sheetXml.matchAll(ANY_R_ATTRIBUTE)) {
    const value = match[2] as string;
    const ref = A1_REF.exec(value);
    if (ref) {
      rows = Math.max(rows, Number(ref[2]));
      columns = Math.max(columns, columnNumber(ref[1] as string));
    } else if (ROW_NUMBER.test(value)) rows = Math.max(rows, Number(value));
    else return walkExtent(sheetXml);
  }
  return rows * columns <= limit ? { rows, columns } : walkExtent(sheetXml);
}

/** The extent as read-excel-file reads it: entities decoded, prefixes dropped, addresses parsed as it does. */
function walkExtent(sheetXml: string): { rows: number; columns: number } {
  let rows = 0;
  let columns = 1;
  let column = 0;
  let inCell = false;
  let inValue = false;
  let filled = false;
  const parser = new Parser();
  parser.on('openTag', (name, attributes) => {
    const local = name.slice(name.indexOf(':') + 1);
    if (local === 'row' || local === 'c') {
      const r = rAttribute(attributes());
      if (local === 'row') {
        if (r) rows = Math.max(rows, Number(r) || 0);
        return;
      }
      const [row, at] = r === undefined ? [0, 0] : readExcelAddress(r);
      rows = Math.max(rows, row);
      column = at;
      inCell = true;
      filled = false;
    } else if (inCell && local === 'v') inValue = true;
    else if (inCell && local === 'is') filled = true;
  });
  parser.on('text', (text) => {
    if (inValue && text !== '') filled = true;
  });
  parser.on('closeTag', (name) => {
    const local = name.slice(name.indexOf(':') + 1);
    if (local === 'v') inValue = false;
    else if (local === 'c') {
      if (filled) columns = Math.max(columns, column);
      inCell = false;
      inValue = false;
    }
  });
  parser.parse(sheetXml);
  return { rows, columns };
}

function rAttribute(attributes: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(attributes)) {
    if (name.slice(name.indexOf(':') + 1) === 'r' && !name.startsWith('xmlns')) return decode(value);
  }
  return undefined;
}

/** [row, column] as read-excel-file's parseCellAddress gives them (letters from `A` = 1, then a Number). */
function readExcelAddress(address: string): [number, number] {
  let column = 0;
  for (let i = 0; i < address.length; i++) {
    const code = address.charCodeAt(i);
    if (code >= 48 && code <= 57) return [Number(address.slice(i)) || 0, column];
    column = column * 26 + (code - 64);
  }
  return [0, 0];
}

function inside(region: SheetRegion, row: number, column: number): boolean {
  return (
    row >= region.firstRow &&
    row <= region.lastRow &&
    column >= region.firstColumn &&
    column <= region.lastColumn
  );
}

/** `A` → 1, `Z` → 26, `AA` → 27. */
export function columnNumber(letters: string): number {
  let value = 0;
  for (const letter of letters) value = value * 26 + (letter.charCodeAt(0) - 64);
  return value;
}

/** 1 → `A`, 27 → `AA`. */
export function columnLetters(column: number): string {
  let letters = '';
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}
