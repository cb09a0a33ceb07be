// `xlsx.header_row` and `xlsx.data_range`: rows and columns a worksheet can have (Excel's own limits), so a range
// naming a cell past them, which no sheet holds, is refused at load rather than read as "to the end".
import { z } from 'zod';

export const SHEET_ROWS = 1_048_576;
/** XFD: the last column of a sheet. */
const SHEET_COLUMNS = 16_384;

const columnNumber = (letters: string) =>
  [...letters].reduce((n, letter) => n * 26 + letter.charCodeAt(0) - 64, 0);

/** Whether each cell of the range is in a sheet; one not written as a cell is the pattern's to report. */
function withinSheet(range: string): boolean {
  return range.split(':').every((cell) => {
    const [, letters, digits] = /^([A-Z]+)([0-9]+)$/.exec(cell) ?? [];
    if (letters === undefined || digits === undefined) return true;
    const row = Number(digits);
    return columnNumber(letters) <= SHEET_COLUMNS && row >= 1 && row <= SHEET_ROWS;
  });
}

export const sheetRange = () =>
  z
    .string()
    .regex(/^[A-Z]+[0-9]+:[A-Z]+[0-9]+$/, 'must be an A1 range such as A5:E10')
    .refine(withinSheet, `must lie within a sheet: columns A to XFD, rows 1 to ${SHEET_ROWS}`)
    .describe(
      `The cells read, header row included: \`B3:E8\` takes the column names from B3:E3 (from row \`header_row\` when that is further down) and the data from rows 4 to 8, leaving out a title above, a total below and columns beside it. Cells of columns A to XFD and rows 1 to ${SHEET_ROWS}.`,
    );
