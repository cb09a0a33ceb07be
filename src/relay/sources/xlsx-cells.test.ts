// The cells of a decoded sheet come back from the decoder thread exactly as decoded, in any cut of batches.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Date1904Number } from '../store/coerce-cell.ts';
import { packSheet, unpackColumns, unpackRows } from './xlsx-cells.ts';

const ROWS: unknown[][] = [
  ['hh-1', 4, true, new Date(Date.UTC(2024, 0, 2)), null],
  ['', -0, false, new Date(-1), 'après'],
  [null, null, null, null, null],
  ['a much longer piece of text 😀', 1.5e300, 'x', 'not a date', new Date1904Number(45000.5)],
  ['z', Number.NaN, null, new Date(-2_208_988_800_000), ''],
];
const SHEET = { columns: ['a', 'b', 'c', 'd', 'e'], rows: ROWS, sheetRows: [2, 3, 5, 6, 1_048_576] };

describe('packSheet', () => {
  for (const chunkChars of [1, 4, 1 << 24]) {
    it(`gives back every cell, whatever the cut (text chunks of ${chunkChars})`, () => {
      const { packed, transfer } = packSheet(SHEET, chunkChars);
      assert.equal(transfer.length, 1 + 3 * SHEET.columns.length);
      assert.deepEqual(packed.columns, SHEET.columns);
      assert.deepEqual([...packed.sheetRows], SHEET.sheetRows);
      assert.deepEqual(unpackRows(packed, 0, ROWS.length), ROWS);
      for (let from = 0; from < ROWS.length; from++) {
        for (let to = from; to <= ROWS.length; to++) {
          assert.deepEqual(unpackRows(packed, from, to), ROWS.slice(from, to), `rows ${from} to ${to}`);
          const columns = unpackColumns(packed, from, to);
          columns.forEach((cells, column) => {
            assert.deepEqual(
              cells,
              ROWS.slice(from, to).map((row) => row[column]),
            );
          });
        }
      }
      const serial = unpackRows(packed, 3, 4)[0]?.[4];
      assert.ok(serial instanceof Date1904Number);
      assert.ok(Object.is(unpackRows(packed, 1, 2)[0]?.[1], -0));
    });
  }

  it('gives back an invalid Date as one', () => {
    const { packed } = packSheet({ columns: ['a'], rows: [[new Date(Number.NaN)]], sheetRows: [2] });
    const [[cell]] = unpackRows(packed, 0, 1) as [[unknown]];
    assert.ok(cell instanceof Date && Number.isNaN(cell.getTime()));
  });

  it('refuses a cell of another kind rather than passing it on changed', () => {
    assert.throws(() => packSheet({ columns: ['a'], rows: [[{}]], sheetRows: [2] }), TypeError);
  });
});
