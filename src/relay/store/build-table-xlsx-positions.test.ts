// XLSX cells and rows without an `r` attribute, which the format allows: a cell then follows the one before it in
// its row (the first is in column A), a row follows the row before it. They are served where those rules put them,
// and refused cells are named by that position.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withCellReferences } from '../sources/sheet-cell-references.ts';
import {
  type Field,
  load,
  loadError,
  served,
  table,
  useWorkbookDir,
  writeWorkbook,
} from './xlsx-workbook-test-support.ts';

useWorkbookDir();

const str = (value: string) => `<c t="inlineStr"><is><t>${value}</t></is></c>`;
const num = (value: number, style?: number) =>
  `<c${style === undefined ? '' : ` s="${style}"`}><v>${value}</v></c>`;
const FIELDS: Field[] = [
  ['id', 'integer'],
  ['name', 'string'],
  ['size', 'integer'],
];
const HEADER = `<row>${str('id')}${str('name')}${str('size')}</row>`;

describe('buildTable from XLSX cells positioned by order', () => {
  it('serves a sheet whose cells and rows have no reference at all', async () => {
    await writeWorkbook('unreferenced.xlsx', {
      rows: `${HEADER}<row>${num(1)}${str('Ada')}${num(3)}</row><row>${num(2)}${str('Grace')}${num(4)}</row>`,
    });
    assert.deepEqual(served(await load(table('unreferenced.xlsx', FIELDS))), [
      { id: 1, name: 'Ada', size: 3 },
      { id: 2, name: 'Grace', size: 4 },
    ]);
  });

  it('places an unreferenced cell after the cell before it, empty `<c/>` cells and referenced ones included', async () => {
    await writeWorkbook('mixed.xlsx', {
      rows:
        `<row r="1">${str('id')}<c/>${str('name')}${str('size')}</row>` +
        `<row r="2">${num(1)}<c/><c r="C2" t="inlineStr"><is><t>Ada</t></is></c>${num(3)}</row>` +
        `<row r="3"><c r="A3"><v>2</v></c><c r="C3" t="inlineStr"><is><t>Grace</t></is></c>${num(4)}</row>`,
    });
    const config = table('mixed.xlsx', FIELDS);
    assert.deepEqual(served(await load(config)), [
      { id: 1, name: 'Ada', size: 3 },
      { id: 2, name: 'Grace', size: 4 },
    ]);
  });

  it('places an unreferenced row after the row before it, an empty one too, and numbers data rows so', async () => {
    const rows = (third: string) =>
      `${HEADER}<row r="3">${num(1)}${str('Ada')}${num(3)}</row><row/><row>${num(2)}${str('Grace')}${third}</row>`;
    await writeWorkbook('rows.xlsx', { rows: rows(num(4)) });
    const config = table('rows.xlsx', FIELDS);
    assert.deepEqual(served(await load(config)), [
      { id: 1, name: 'Ada', size: 3 },
      { id: 2, name: 'Grace', size: 4 },
    ]);
    // The header is sheet row 1, Ada's row 3 and Grace's row 5: data row 4.
    await writeWorkbook('rows-mismatch.xlsx', { rows: rows(str('four')) });
    const error = await loadError(table('rows-mismatch.xlsx', FIELDS));
    assert.deepEqual([error.code, error.row, error.column], ['ingest.type_mismatch', 4, 'size']);
  });

  it('reads an unreferenced date-formatted cell as the date, and a data_range by the same positions', async () => {
    await writeWorkbook('dates.xlsx', {
      rows:
        `<row>${str('note')}${str('id')}${str('on')}</row>` +
        `<row>${str('x')}${num(1)}${num(45292.000023148146, 1)}</row>`,
    });
    const config = {
      ...table('dates.xlsx', [
        ['id', 'integer'],
        ['on', 'timestamp'],
      ]),
      source: {
        type: 'file' as const,
        path: 'dates.xlsx',
        format: { xlsx: { header_row: 1, data_range: 'B1:C2' } },
      },
    };
    assert.deepEqual(served(await load(config)), [{ id: 1, on: '2024-01-01T00:00:02.000Z' }]);
  });

  it('serves prefixed sheet elements positioned by order', async () => {
    await writeWorkbook('prefixed.xlsx', {
      rows:
        `<x:row xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${str('id')}<x:c t="inlineStr"><x:is><x:t>name</x:t></x:is></x:c>${str('size')}</x:row>` +
        `<row>${num(1)}${str('Ada')}<x:c xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:v>3</x:v></x:c></row>`,
    });
    assert.deepEqual(served(await load(table('prefixed.xlsx', FIELDS))), [{ id: 1, name: 'Ada', size: 3 }]);
  });

  it('refuses a formula in an unreferenced cell, naming the cell where the order puts it', async () => {
    await writeWorkbook('formula.xlsx', {
      rows: `${HEADER}<row>${num(1)}${str('Ada')}<c><f>1+2</f><v>3</v></c></row>`,
    });
    const error = await loadError(table('formula.xlsx', FIELDS));
    assert.deepEqual([error.code, error.cell, error.row], ['ingest.formula_cell', 'C2', 1]);
  });

  it('refuses an error value in an unreferenced cell, naming the cell', async () => {
    await writeWorkbook('error-value.xlsx', {
      rows: `${HEADER}<row>${num(1)}${str('Ada')}${num(3)}</row><row>${num(2)}<c t="e"><v>#N/A</v></c></row>`,
    });
    const error = await loadError(table('error-value.xlsx', FIELDS));
    assert.deepEqual([error.code, error.cell, error.row], ['ingest.error_cell', 'B3', 2]);
  });

  it('refuses a merge over unreferenced cells, naming the hidden cell', async () => {
    await writeWorkbook('merged.xlsx', {
      rows: `${HEADER}<row>${num(1)}${str('Ada')}${num(3)}</row><row>${num(2)}<c/>${num(4)}</row>`,
      afterSheetData: '<mergeCells count="1"><mergeCell ref="B2:B3"/></mergeCells>',
    });
    const error = await loadError(table('merged.xlsx', FIELDS));
    assert.deepEqual([error.code, error.cell], ['ingest.merged_cell', 'B3']);
  });

  it('still refuses a sheet with a tag left open, rather than place cells in it', async () => {
    await writeWorkbook('torn.xlsx', { rows: `${HEADER}<row><c <v>1</v></c></row>` });
    const error = await loadError(table('torn.xlsx', FIELDS));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(error.message, /not well-formed/);
  });

  it('refuses a cell placed by order before the cell it follows, saying where', async () => {
    // C2 then an unreferenced cell is D2; the next, referenced B2, goes back along the row.
    await writeWorkbook('backwards.xlsx', {
      rows: `${HEADER}<row><c r="C2"><v>3</v></c><c><v>9</v></c><c r="B2"><v>1</v></c></row>`,
    });
    const error = await loadError(table('backwards.xlsx', FIELDS));
    assert.deepEqual([error.code, error.cell], ['ingest.parse_error', 'B2']);
    assert.match(error.message, /sheet "Data" cannot be decoded: cell B2 comes after cell D2 in its row/);
  });
});

describe('withCellReferences', () => {
  it('leaves a sheet whose cells all have a reference as it is', () => {
    const xml = '<sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c s="1" r="B1"/></row></sheetData>';
    assert.equal(withCellReferences(xml), undefined);
  });

  it('gives each unreferenced cell the reference of its place, and changes nothing else', () => {
    const xml =
      '<sheetData><row><c t="s"><v>0</v></c><c/><c r="D1"/><c\n s="2">' +
      '<v>1</v></c></row><row spans="1:2"/><row><c xmlns:r="urn:x"/></row></sheetData>';
    assert.equal(
      withCellReferences(xml),
      '<sheetData><row><c r="A1" t="s"><v>0</v></c><c r="B1"/><c r="D1"/><c r="E1"\n s="2">' +
        '<v>1</v></c></row><row spans="1:2"/><row><c r="A3" xmlns:r="urn:x"/></row></sheetData>',
    );
  });

  it('leaves markup with a tag left open to the check that refuses it', () => {
    assert.equal(withCellReferences('<sheetData><row><c <v>1</v></c></row></sheetData>'), undefined);
  });
});
