// XLSX reading: sheet choice, header_row and data_range, cell types, formula rejection, corrupt files, limits.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import writeXlsxFile, { type SheetData } from 'write-excel-file/node';
import { runToEnd } from '../../../test/helpers/run-to-end.ts';
import type { TableConfig } from '../config/schema.ts';
import { columnLetters, columnNumber } from './find-formula-cell.ts';
import { openFileSource, type SourceRows } from './open-file-source.ts';
import { inlineCell, rawXlsx, rowsOf, sheetXmlOf, sourceErrorOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-xlsx-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LIMITS = { maxFileBytes: 64 * 1024 * 1024, xlsxMaxFileBytes: 64 * 1024 * 1024 };
const JOINED = new Date(Date.UTC(2024, 0, 2));
const date = (value: Date) => ({ type: Date, value, format: 'yyyy-mm-dd' });

async function writeSheets(name: string, sheets: { sheet: string; data: SheetData }[]): Promise<void> {
  await writeFile(join(dir, name), await writeXlsxFile(sheets).toBuffer());
}

type Xlsx = { sheet?: string; header_row?: number; data_range?: string };

function openXlsx(name: string, xlsx?: Xlsx): Promise<SourceRows> {
  const source: TableConfig['source'] = { type: 'file', path: name };
  if (xlsx !== undefined) source.format = { xlsx: { header_row: 1, ...xlsx } };
  return openFileSource('households', source, { baseDir: dir, ...LIMITS });
}

/** A minimal workbook written part by part (an escaped sheet name, an absolute sheet target). */
async function writeRawXlsx(name: string, sheetXml: string): Promise<void> {
  const raw = rawXlsx(sheetXml, { sheetName: 'Data &amp; more', sheetTarget: '/xl/worksheets/sheet1.xml' });
  await writeFile(join(dir, name), raw);
}

const inline = inlineCell;
const sheetXml = sheetXmlOf;

describe('readXlsx', () => {
  before(async () => {
    await writeSheets('two-sheets.xlsx', [
      {
        sheet: 'summary',
        data: [
          ['id', 'name', 'size', 'active', 'joined', 'serial'],
          ['hh-1', 'North', 4, true, date(JOINED), 45293],
          ['hh-2', 'South', 2.5, false, null, null],
        ],
      },
      { sheet: 'details', data: [['code'], ['x'], ['y']] },
    ]);
  });

  it('reads the first sheet with typed cells', async () => {
    const source = await openXlsx('two-sheets.xlsx');
    assert.deepEqual(source.columns, ['id', 'name', 'size', 'active', 'joined', 'serial']);
    assert.deepEqual(await rowsOf(source), [
      ['hh-1', 'North', 4, true, JOINED, 45293],
      ['hh-2', 'South', 2.5, false, null, null],
    ]);
  });

  it('hashes exactly the bytes it decoded, whatever the path holds afterwards', async () => {
    await writeSheets('replaced.xlsx', [{ sheet: 'one', data: [['id'], ['first']] }]);
    const before = await readFile(join(dir, 'replaced.xlsx'));
    const source = await openXlsx('replaced.xlsx');
    // Replaced once read (a rename by a publishing job): the rows and their hash still describe what was read.
    await writeSheets('replaced.xlsx', [{ sheet: 'one', data: [['id'], ['second']] }]);
    assert.deepEqual(await rowsOf(source), [['first']]);
    assert.equal(source.contentHash, createHash('sha256').update(before).digest('hex'));
  });

  it('reads a named sheet', async () => {
    const source = await openXlsx('two-sheets.xlsx', { sheet: 'details' });
    assert.deepEqual(source.columns, ['code']);
    assert.deepEqual(await rowsOf(source), [['x'], ['y']]);
  });

  it('lists the available sheets when the named one is missing', async () => {
    const error = await sourceErrorOf(() => openXlsx('two-sheets.xlsx', { sheet: 'Details ' }));
    assert.equal(error.code, 'ingest.sheet_not_found');
    assert.match(error.message, /available sheets: "summary", "details"/);
  });

  it('ignores rows above header_row and skips blank rows', async () => {
    await writeSheets('notes.xlsx', [
      {
        sheet: 'data',
        data: [
          ['Exported for review', null, null, null, null, null, 'far note'],
          [],
          ['id', 'amount'],
          ['a', 1],
          [],
          ['b', 2],
        ],
      },
    ]);
    const source = await openXlsx('notes.xlsx', { header_row: 3 });
    assert.deepEqual(source.columns, ['id', 'amount']);
    assert.deepEqual(await rowsOf(source), [
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('restricts to data_range, its first row being the header', async () => {
    await writeSheets('range.xlsx', [
      {
        sheet: 'data',
        data: [
          ['note 1'],
          ['note 2'],
          ['note 3'],
          ['note 4'],
          ['left', 'id', 'name', '', 'right'],
          ['x', 1, 'one', true, 'x'],
          ['x', 2, null, false, 'x'],
          ['x', 3, 'three', null, 'x'],
          ['x', 4, 'outside', null, 'x'],
        ],
      },
    ]);
    const source = await openXlsx('range.xlsx', { header_row: 5, data_range: 'B5:D8' });
    assert.deepEqual(source.columns, ['id', 'name', 'column_3']);
    assert.deepEqual(await rowsOf(source), [
      [1, 'one', true],
      [2, null, false],
      [3, 'three', null],
    ]);
    const defaultHeader = await openXlsx('range.xlsx', { data_range: 'B5:C6' });
    assert.deepEqual(defaultHeader.columns, ['id', 'name']);
    assert.deepEqual(await rowsOf(defaultHeader), [[1, 'one']]);
  });

  it('rejects a data_range that selects nothing below the header', async () => {
    const error = await sourceErrorOf(() => openXlsx('range.xlsx', { header_row: 9, data_range: 'B5:D8' }));
    assert.equal(error.code, 'ingest.parse_error');
  });

  it('rejects a formula cell inside the data region, naming the cell', async () => {
    await writeSheets('formula.xlsx', [
      {
        sheet: 'data',
        data: [
          ['a', 'b', 'c'],
          [1, 2, 3],
          [4, 5, { type: 'Formula', value: '=A3*2' }],
        ],
      },
    ]);
    const error = await sourceErrorOf(() => openXlsx('formula.xlsx'));
    assert.equal(error.code, 'ingest.formula_cell');
    assert.equal(error.cell, 'C3');
    assert.equal(error.row, 2);
    assert.match(error.message, /C3/);
    assert.match(error.message, /table households/);
    const outside = await openXlsx('formula.xlsx', { data_range: 'A1:B3' });
    assert.deepEqual(await rowsOf(outside), [
      [1, 2],
      [4, 5],
    ]);
  });

  it('rejects formulas with cached values, shared formulas and prefixed markup; allows them above the header', async () => {
    const cached = sheetXml(
      `<row r="1">${inline('A1', 'id')}${inline('B1', 'total')}</row><row r="2"><c r="A2"><v>1</v></c><c r="B2"><f>A2*10</f><v>10</v></c></row>`,
    );
    await writeRawXlsx('cached.xlsx', cached);
    const first = await sourceErrorOf(() => openXlsx('cached.xlsx'));
    assert.equal(first.code, 'ingest.formula_cell');
    assert.equal(first.cell, 'B2');

    const prefixed = cached
      .replace('<worksheet xmlns=', '<x:worksheet xmlns:x=')
      .replace('</worksheet>', '</x:worksheet>')
      .replaceAll(/<(\/?)(sheetData|row|c|is|t|v|f)([ >])/g, '<$1x:$2$3')
      .replace('<x:f>A2*10</x:f>', '<x:f t="shared" si="0"/>');
    await writeRawXlsx('prefixed.xlsx', prefixed);
    const second = await sourceErrorOf(() => openXlsx('prefixed.xlsx'));
    assert.equal(second.code, 'ingest.formula_cell');
    assert.equal(second.cell, 'B2');

    await writeRawXlsx(
      'title-formula.xlsx',
      sheetXml(
        `<row r="1"><c r="A1" t="str"><f>"Report "&amp;YEAR(TODAY())</f><v>Report 2024</v></c></row><row r="2">${inline('A2', 'id')}</row><row r="3"><c r="A3"><v>7</v></c></row>`,
      ),
    );
    const source = await openXlsx('title-formula.xlsx', { header_row: 2 });
    assert.deepEqual(source.columns, ['id']);
    assert.deepEqual(await rowsOf(source), [[7]]);
  });

  it('rejects an error cell inside the data region, naming it; allows one above the header or outside data_range', async () => {
    await writeRawXlsx(
      'error-cell.xlsx',
      sheetXml(
        `<row r="1"><c r="A1" t="e"><v>#REF!</v></c></row><row r="2">${inline('A2', 'id')}${inline('B2', 'size')}</row><row r="3"><c r="A3"><v>1</v></c><c r="B3" t="e"><v>#DIV/0!</v></c></row>`,
      ),
    );
    const error = await sourceErrorOf(() => openXlsx('error-cell.xlsx', { header_row: 2 }));
    assert.equal(error.code, 'ingest.error_cell');
    assert.equal(error.cell, 'B3');
    assert.equal(error.row, 1);
    assert.match(error.message, /table households/);
    assert.match(error.message, /#DIV\/0! in cell B3/);
    const outside = await openXlsx('error-cell.xlsx', { header_row: 2, data_range: 'A2:A3' });
    assert.deepEqual(await rowsOf(outside), [[1]]);

    // A formula whose cached value is an error is reported as the formula: saving the values comes first.
    await writeRawXlsx(
      'error-formula.xlsx',
      sheetXml(
        `<row r="1">${inline('A1', 'id')}</row><row r="2"><c r="A2" t="e"><f>1/0</f><v>#DIV/0!</v></c></row>`,
      ),
    );
    const formula = await sourceErrorOf(() => openXlsx('error-formula.xlsx'));
    assert.equal(formula.code, 'ingest.formula_cell');
    assert.equal(formula.cell, 'A2');

    // Text that is no error code is not echoed into the message.
    await writeRawXlsx(
      'error-text.xlsx',
      sheetXml(`<row r="1">${inline('A1', 'id')}</row><row r="2"><c r="A2" t='e'><v>PIN 4711</v></c></row>`),
    );
    const text = await sourceErrorOf(() => openXlsx('error-text.xlsx'));
    assert.equal(text.code, 'ingest.error_cell');
    assert.equal(text.cell, 'A2');
    assert.doesNotMatch(text.message, /4711/);
  });

  it('rejects cells merged inside the data region, naming the range; allows merges outside it', async () => {
    const rows =
      `<row r="1">${inline('A1', 'title')}</row><row r="2">${inline('A2', 'id')}${inline('B2', 'region')}</row>` +
      `<row r="3">${inline('A3', 'a')}${inline('B3', 'North')}</row><row r="4">${inline('A4', 'b')}</row>`;
    const merged = (refs: string[]) =>
      `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData><mergeCells count="${refs.length}">${refs.map((ref) => `<mergeCell ref="${ref}"/>`).join('')}</mergeCells></worksheet>`;
    // B3:B4 shows North twice, but only B3 holds it: B4 would be served empty.
    await writeRawXlsx('merged.xlsx', merged(['A1:B1', 'B3:B4']));
    const error = await sourceErrorOf(() => openXlsx('merged.xlsx', { header_row: 2 }));
    assert.equal(error.code, 'ingest.merged_cell');
    assert.equal(error.cell, 'B4');
    assert.equal(error.row, 2);
    assert.match(error.message, /B3:B4/);
    // A merge reaching into the region from above hides its cells in the region too.
    await writeRawXlsx('merged-above.xlsx', merged(['B1:B3']));
    const above = await sourceErrorOf(() => openXlsx('merged-above.xlsx', { header_row: 2 }));
    assert.equal(above.code, 'ingest.merged_cell');
    assert.equal(above.cell, 'B2');
    // A title merged above the header, or a merge whose other cells all lie outside data_range, is not read.
    await writeRawXlsx('merged-title.xlsx', merged(['A1:B1', 'B4:C4']));
    assert.deepEqual(
      await rowsOf(await openXlsx('merged-title.xlsx', { header_row: 2, data_range: 'A2:B4' })),
      [
        ['a', 'North'],
        ['b', null],
      ],
    );
  });

  it('searches a sheet of unclosed mergeCell tags for merges in one pass', () => {
    // 2.2 MB of XML, which deflates to a few KB. In a process of its own, stopped after 20 s: the search once ran
    // from each `<mergeCell` to the end of the text (about 80 s here). A guard, not a timing.
    const script = `import { findMergedCell } from ${JSON.stringify(new URL('./find-formula-cell.ts', import.meta.url).href)};
      const region = { firstRow: 2, lastRow: Infinity, firstColumn: 1, lastColumn: Infinity };
      const torn = '<mergeCell '.repeat(200_000);
      const found = [findMergedCell(torn, region), findMergedCell(torn + '<mergeCell ref="B3:B4"/>', region)];
      process.stdout.write(JSON.stringify(found.map((merged) => merged?.range ?? null)));`;
    assert.equal(runToEnd(script), '[null,"B3:B4"]');
  });

  it('keeps header and cell text exactly as stored', async () => {
    await writeRawXlsx(
      'spaced.xlsx',
      sheetXml(
        `<row r="1">${inline('A1', 'id')}${inline('B1', 'name ')}</row><row r="2">${inline('A2', ' a')}${inline('B2', ' ')}</row>`,
      ),
    );
    const source = await openXlsx('spaced.xlsx');
    assert.deepEqual(source.columns, ['id', 'name ']);
    assert.deepEqual(await rowsOf(source), [[' a', ' ']]);
  });

  it('rejects corrupt, truncated and non-workbook files as parse errors', async () => {
    await writeFile(join(dir, 'garbage.xlsx'), 'this is not a zip file at all');
    const whole = await readFile(join(dir, 'two-sheets.xlsx'));
    await writeFile(join(dir, 'truncated.xlsx'), whole.subarray(0, Math.floor(whole.length / 2)));
    await writeFile(join(dir, 'plain.xlsx'), zipSync({ 'readme.txt': strToU8('hello') }));
    await writeRawXlsx('broken-xml.xlsx', '<worksheet><sheetData><row><c r="A1"><v>1</v></row>');
    for (const name of ['garbage.xlsx', 'truncated.xlsx', 'plain.xlsx', 'broken-xml.xlsx']) {
      const error = await sourceErrorOf(() => openXlsx(name));
      assert.equal(error.code, 'ingest.parse_error', name);
      assert.match(error.message, new RegExp(name.replace('.', '\\.')));
    }
  });

  it('says a password-protected workbook or an .xls file is one, not that it is corrupt', async () => {
    // Both are OLE compound files, which Excel opens: the operator needs to know to save it again, not re-copy it.
    const ole = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(1024)]);
    await writeFile(join(dir, 'protected.xlsx'), ole);
    const error = await sourceErrorOf(() => openXlsx('protected.xlsx'));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(error.message, /password-protected workbook or an \.xls file/);
    assert.doesNotMatch(error.message, /corrupt/);
  });

  it('caps the data region at 10,000,000 cells', async () => {
    await writeSheets('tall.xlsx', [
      { sheet: 'data', data: Array.from({ length: 700 }, (_, index) => [index]) },
    ]);
    const error = await sourceErrorOf(() => openXlsx('tall.xlsx', { data_range: 'A1:XFD700' }));
    assert.equal(error.code, 'ingest.column_limit');
    const fine = await openXlsx('tall.xlsx', { data_range: 'A1:A700' });
    assert.equal((await rowsOf(fine)).length, 699);
  });

  it('refuses a sheet whose one far cell would be laid out as billions, before decoding it', async () => {
    const head = `<row r="1">${inline('A1', 'id')}</row><row r="2">${inline('A2', 'a')}</row>`;
    // Decoded, this small file would fill 16,384 × 1,048,576 cells and exhaust the heap.
    await writeRawXlsx(
      'far-cell.xlsx',
      sheetXml(`${head}<row r="1048576">${inline('XFD1048576', 'x')}</row>`),
    );
    // The same cell spelled as read-excel-file also reads it: a prefixed attribute, a character reference.
    const spelled = '<row r="1048576"><c x:r="&#88;FD1048576" t="inlineStr"><is><t>x</t></is></c></row>';
    await writeRawXlsx('far-spelled.xlsx', sheetXml(`${head}${spelled}`));
    for (const [name, xlsx] of [
      ['far-cell.xlsx', undefined],
      ['far-cell.xlsx', { data_range: 'A1:A2' }],
      ['far-spelled.xlsx', undefined],
    ] as const) {
      const error = await sourceErrorOf(() => openXlsx(name, xlsx));
      assert.equal(error.code, 'ingest.column_limit', name);
      assert.match(error.message, /16384 columns × 1048576 rows/, name);
    }
    // An empty row numbered far away is laid out as that many empty rows.
    await writeRawXlsx('far-row.xlsx', sheetXml(`${head}<row r="300000000"/>`));
    assert.equal((await sourceErrorOf(() => openXlsx('far-row.xlsx'))).code, 'ingest.column_limit');
    // Empty cells that far away are not laid out, so they do not count.
    const empty =
      '<row r="1048575"><c r="XFD1048575"><v></v></c></row><row r="1048576"><c r="XFD1048576" t="s"/></row>';
    await writeRawXlsx('far-empty.xlsx', sheetXml(`${head}${empty}`));
    assert.deepEqual(await rowsOf(await openXlsx('far-empty.xlsx')), [['a']]);
  });

  it('converts between column letters and numbers', () => {
    for (const [letters, number] of [
      ['A', 1],
      ['Z', 26],
      ['AA', 27],
      ['AZ', 52],
      ['XFD', 16_384],
    ] as const) {
      assert.equal(columnNumber(letters), number);
      assert.equal(columnLetters(number), letters);
    }
  });
});
