// Finds the first formula cell (a `<c>` with an `<f>` child) inside a region of a worksheet's XML.
// read-excel-file hands back only cached values (or nothing) for formula cells, so they are found here.
import { Parser } from 'saxen';

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

/** Cheap pre-check so sheets without any formula (the usual case) skip the XML walk. */
const MAY_HOLD_FORMULA = /<(?:[A-Za-z_][\w.-]*:)?f[\s/>]/;
const CELL_REF = /^([A-Z]{1,3})([0-9]+)$/;

/** Throws the parser's error on XML that is not well-formed. */
export function findFormulaCell(sheetXml: string, region: SheetRegion): CellPosition | undefined {
  if (!MAY_HOLD_FORMULA.test(sheetXml)) return undefined;
  let row = 0;
  let column = 0;
  let inCell = false;
  let found: CellPosition | undefined;
  const stop = new Error('formula found');
  const parser = new Parser();
  parser.on('openTag', (name, attributes) => {
    const local = name.slice(name.indexOf(':') + 1);
    if (local === 'row') {
      const r = Number(attributes().r);
      row = Number.isInteger(r) && r > 0 ? r : row + 1;
      column = 0;
    } else if (local === 'c') {
      inCell = true;
      const ref = CELL_REF.exec(attributes().r ?? '');
      if (ref?.[1] !== undefined && ref[2] !== undefined) {
        column = columnNumber(ref[1]);
        row = Number(ref[2]);
      } else {
        column += 1;
      }
    } else if (local === 'f' && inCell && inside(region, row, column)) {
      found = { ref: `${columnLetters(column)}${row}`, row, column };
      throw stop;
    }
  });
  parser.on('closeTag', (name) => {
    if (name.slice(name.indexOf(':') + 1) === 'c') inCell = false;
  });
  try {
    parser.parse(sheetXml);
  } catch (error) {
    if (error !== stop) throw error;
  }
  return found;
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
