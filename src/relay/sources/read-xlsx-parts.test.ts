// The XML parts of a workbook besides its cells: a <!DOCTYPE> in any part read, and shared string references the
// shared strings do not hold, must fail the load with a coded error naming the part or the cell.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { openFileSource } from './open-file-source.ts';
import { rowsOf, sourceErrorOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-xlsx-parts-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A workbook of one sheet, "Data", written part by part; `more` adds or replaces parts. */
async function writeRawXlsx(
  name: string,
  sheetXml: string,
  more: Record<string, string> = {},
): Promise<void> {
  const parts: Record<string, string> = {
    '[Content_Types].xml': `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml': sheetXml,
    ...more,
  };
  const entries = Object.fromEntries(Object.entries(parts).map(([path, text]) => [path, strToU8(text)]));
  await writeFile(join(dir, name), zipSync(entries));
}

const openXlsx = (name: string) =>
  openFileSource(
    'households',
    { type: 'file', path: name },
    {
      baseDir: dir,
      maxFileBytes: 1024 * 1024,
      xlsxMaxFileBytes: 1024 * 1024,
    },
  );
const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const sheetXml = (rows: string) =>
  `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`;

describe('readXlsx workbook parts', () => {
  it('refuses a <!DOCTYPE> in the parts it reads, whose entities would be served as their names', async () => {
    const doctype = '<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>';
    const shared = `<?xml version="1.0"?>${doctype}<sst xmlns="${MAIN}"><si><t>&b;</t></si></sst>`;
    const usesShared = sheetXml(
      `<row r="1">${inline('A1', 'name')}</row><row r="2"><c r="A2" t="s"><v>0</v></c></row>`,
    );
    await writeRawXlsx('doctype-strings.xlsx', usesShared, { 'xl/sharedStrings.xml': shared });
    const workbook = `<?xml version="1.0"?>${doctype}<workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}"><sheets><sheet name="&b;" sheetId="1" r:id="rId1"/></sheets></workbook>`;
    const plain = sheetXml(`<row r="1">${inline('A1', 'name')}</row><row r="2">${inline('A2', 'x')}</row>`);
    await writeRawXlsx('doctype-workbook.xlsx', plain, { 'xl/workbook.xml': workbook });
    await writeRawXlsx('doctype-sheet.xlsx', plain.replace('<worksheet', `${doctype}<worksheet`));
    for (const [name, part] of [
      ['doctype-strings.xlsx', 'xl/sharedStrings.xml'],
      ['doctype-workbook.xlsx', 'xl/workbook.xml'],
      ['doctype-sheet.xlsx', 'xl/worksheets/sheet1.xml'],
    ] as const) {
      const error = await sourceErrorOf(async () => rowsOf(await openXlsx(name)));
      assert.equal(error.code, 'ingest.parse_error', name);
      assert.ok(
        error.message.includes(`${part}) is not well-formed XML`) ||
          error.message.includes(`${part} is not well-formed XML`),
        error.message,
      );
      assert.match(error.message, /it has a <!DOCTYPE> or other declaration, which is not read/, name);
    }
  });

  it('names the cell whose shared string index lies past the shared strings', async () => {
    const shared = `<?xml version="1.0"?><sst xmlns="${MAIN}"><si><t>only</t></si></sst>`;
    const rows = `<row r="1">${inline('A1', 'name')}${inline('B1', 'code')}</row><row r="2">${inline('A2', 'x')}<c r="B2" t="s"><v>7</v></c></row>`;
    await writeRawXlsx('shared-past.xlsx', sheetXml(rows), { 'xl/sharedStrings.xml': shared });
    const error = await sourceErrorOf(async () => rowsOf(await openXlsx('shared-past.xlsx')));
    assert.equal(error.code, 'ingest.parse_error');
    assert.equal(error.cell, 'B2');
    assert.equal(error.row, 1);
    assert.match(
      error.message,
      /cell B2 holds a value that cannot be read as its type \(such as a shared string/,
    );
  });
});
