// XLSX numbers Excel reads otherwise than a plain count would: serials of January and February 1900 (Excel's
// leap-year bug) and numbers too long for their digits to survive as a double.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Field,
  header,
  load,
  loadError,
  num,
  row,
  served,
  table,
  useWorkbookDir,
  writeWorkbook,
} from './xlsx-workbook-test-support.ts';

useWorkbookDir();

describe('buildTable from XLSX numbers', () => {
  it('serves January and February 1900 as Excel shows them, formatted or plain, and refuses its 1900-02-29', async () => {
    const cells = (r: number, serial: number) =>
      row(r, `${num(`A${r}`, r)}${num(`B${r}`, serial, 1)}${num(`C${r}`, serial)}${num(`D${r}`, serial, 2)}`);
    await writeWorkbook('early-1900.xlsx', {
      rows: header('id', 'formatted', 'plain', 'stamp') + cells(2, 1) + cells(3, 59) + cells(4, 61),
    });
    const fields: Field[] = [
      ['id', 'integer'],
      ['formatted', 'date'],
      ['plain', 'date'],
      ['stamp', 'string'],
    ];
    assert.deepEqual(served(await load(table('early-1900.xlsx', fields))), [
      { id: 2, formatted: '1900-01-01', plain: '1900-01-01', stamp: '1900-01-01T00:00:00.000Z' },
      { id: 3, formatted: '1900-02-28', plain: '1900-02-28', stamp: '1900-02-28T00:00:00.000Z' },
      { id: 4, formatted: '1900-03-01', plain: '1900-03-01', stamp: '1900-03-01T00:00:00.000Z' },
    ]);
    await writeWorkbook('leap-1900.xlsx', {
      rows: header('id', 'formatted', 'plain', 'stamp') + cells(2, 60),
    });
    for (const [name, type] of [
      ['formatted', 'date'],
      ['plain', 'timestamp'],
      ['stamp', 'string'],
    ] as const) {
      const error = await loadError(
        table('leap-1900.xlsx', [
          ['id', 'integer'],
          [name, type],
        ]),
      );
      assert.equal(error.code, 'ingest.type_mismatch', name);
      assert.equal(error.column, name);
    }
  });

  it('refuses a number past 2^53 in a string field rather than serve other digits than the cell has', async () => {
    await writeWorkbook('long-ids.xlsx', {
      rows:
        header('id', 'code') +
        row(2, `${num('A2', 1)}${num('B2', '9007199254740991')}`) +
        row(3, `${num('A3', 2)}${num('B3', '12345678901234567890')}`),
    });
    const error = await loadError(
      table('long-ids.xlsx', [
        ['id', 'integer'],
        ['code', 'string'],
      ]),
    );
    assert.equal(error.code, 'ingest.type_mismatch');
    assert.equal(error.row, 2);
    assert.doesNotMatch(error.message, /1234567890/);
    await writeWorkbook('safe-ids.xlsx', {
      rows: header('id', 'code') + row(2, `${num('A2', 1)}${num('B2', '9007199254740991')}`),
    });
    const fields: Field[] = [
      ['id', 'integer'],
      ['code', 'string'],
    ];
    assert.deepEqual(served(await load(table('safe-ids.xlsx', fields))), [
      { id: 1, code: '9007199254740991' },
    ]);
  });
});
