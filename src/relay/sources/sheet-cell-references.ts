// Gives a reference to each worksheet cell written without one. The format lets a `<c>` leave out its `r`: it then
// follows the cell before it in its row (the first in column A), and a `<row>` without `r` follows the row before
// it. read-excel-file needs a reference on every cell, so such sheets are handed to it, and to the checks run
// before it, with the references written in.
import { constants } from 'node:buffer';
import { columnLetters, columnNumber } from './find-formula-cell.ts';
import { tagEnd } from './scan-sheet-markup.ts';

/**
 * A cell tag none of whose attributes is `r` (an `xmlns:r` declaration is not one): the sheet needs references. No
 * part matches a `<`, which no tag holds, so a search from each `<c` stops at the next tag (else it is quadratic).
 */
const UNREFERENCED_CELL =
  /<(?:[A-Za-z_][\w.-]*:)?c(?:\s+(?!(?:(?!xmlns:)[\w.-]+:)?r\s*=)[^\s=/<>]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*\s*\/?>/;
/** The tags that position cells, prefixed or not; the lookahead keeps `<cols>`, `<rowBreaks>` and the like out. */
const POSITIONING_TAG = /<(\/?)(?:[A-Za-z_][\w.-]*:)?(sheetData|row|c)(?=[\s/>])/g;
const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const A1 = /^([A-Z]{1,3})([0-9]{1,7})$/;
const ROW_NUMBER = /^[0-9]{1,7}$/;

/** Why a sheet's cells cannot be placed: two of them at one place, or one placed before the cell it follows. */
export class CellOrderError extends Error {
  readonly ref: string;
  constructor(ref: string, message: string) {
    super(message);
    this.ref = ref;
  }
}

/**
 * The sheet XML with `r="<A1>"` written into each `<c>` that has none, or undefined when every cell has one (the
 * usual case, told by one regular-expression search) or a tag is left open (refused by the markup check). Throws
 * CellOrderError when a cell would come at or before the place of the cell before it, and a RangeError when the
 * references would make the text longer than a string can be.
 */
export function withCellReferences(xml: string): string | undefined {
  if (!UNREFERENCED_CELL.test(xml)) return undefined;
  const pieces: string[] = [];
  let from = 0;
  let added = 0;
  let inSheetData = false;
  // The row being read, once known: from its `r`, else its first referenced cell, else the row before plus one.
  let row = 0;
  let rowKnown = true;
  let column = 0;
  let lastRow = 0;
  let lastColumn = 0;
  for (const match of xml.matchAll(POSITIONING_TAG)) {
    const at = match.index;
    const end = tagEnd(xml, at);
    if (end < 0) return undefined;
    const closing = match[1] === '/';
    const selfClosing = xml.charCodeAt(end - 2) === 47;
    const name = match[2];
    if (name === 'sheetData') {
      inSheetData = !closing && !selfClosing;
      continue;
    }
    if (!inSheetData) continue;
    if (name === 'row') {
      if (!closing) {
        const r = referenceOf(xml, at + match[0].length, end);
        rowKnown = r !== undefined && ROW_NUMBER.test(r);
        if (rowKnown) row = Number(r);
        column = 0;
      }
      // A row without `r` or cells is still a row: the next one comes after it.
      if ((closing || selfClosing) && !rowKnown) {
        row += 1;
        rowKnown = true;
      }
      continue;
    }
    if (closing) continue;
    const ref = A1.exec(referenceOf(xml, at + match[0].length, end) ?? '');
    if (ref !== null) {
      row = Number(ref[2]);
      column = columnNumber(ref[1] as string);
    } else {
      if (!rowKnown) row += 1;
      column += 1;
      const insertAt = at + match[0].length;
      const attribute = ` r="${columnLetters(column)}${row}"`;
      added += attribute.length;
      if (xml.length + added > constants.MAX_STRING_LENGTH) {
        throw new RangeError('the sheet with its cell references written in is longer than a string can be');
      }
      pieces.push(xml.slice(from, insertAt), attribute);
      from = insertAt;
    }
    rowKnown = true;
    if (row < lastRow || (row === lastRow && column <= lastColumn)) {
      throw outOfOrder({ row, column }, { row: lastRow, column: lastColumn });
    }
    lastRow = row;
    lastColumn = column;
  }
  pieces.push(xml.slice(from));
  return pieces.join('');
}

/** The value of the `r` attribute (prefixed or not, but not `xmlns:r`) among `xml[from, to)`, or undefined. */
function referenceOf(xml: string, from: number, to: number): string | undefined {
  // Most cells written without a reference have no `r` anywhere in their attributes (`<c t="n">`, `<c s="1">`).
  let r = from;
  while (r < to && xml.charCodeAt(r) !== 114) r++;
  if (r === to) return undefined;
  for (const match of xml.slice(from, to).matchAll(ATTRIBUTE)) {
    const name = match[1] as string;
    if (name.slice(name.indexOf(':') + 1) === 'r' && !name.startsWith('xmlns')) return match[2] ?? match[3];
  }
  return undefined;
}

function outOfOrder(
  cell: { row: number; column: number },
  before: { row: number; column: number },
): CellOrderError {
  const ref = `${columnLetters(cell.column)}${cell.row}`;
  const previous = `${columnLetters(before.column)}${before.row}`;
  const where = cell.row === before.row ? 'in its row' : 'of a later row';
  return new CellOrderError(
    ref,
    `cell ${ref} comes after cell ${previous} ${where} (a cell without a reference follows the cell before it, so cells must come in order)`,
  );
}
