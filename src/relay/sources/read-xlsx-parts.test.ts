// The XML parts of a workbook besides its cells: a <!DOCTYPE> in any part read, shared string references the
// shared strings do not hold, and relationship targets the decoder would not find as written must fail the load
// with a coded error naming the part, the cell or the relationship.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openFileSource } from './open-file-source.ts';
import { inlineCell, rawXlsx, rowsOf, sheetXmlOf, sourceErrorOf, XLSX_NS } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-xlsx-parts-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const { main: MAIN, rels: RELS, docRels: DOC_RELS } = XLSX_NS;

/** A workbook of one sheet, "Data", written part by part; `parts` adds or replaces parts. */
async function writeRawXlsx(
  name: string,
  sheetXml: string,
  parts: Record<string, string> = {},
): Promise<void> {
  await writeFile(join(dir, name), rawXlsx(sheetXml, { parts }));
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
const inline = inlineCell;
const sheetXml = sheetXmlOf;

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

  it('refuses a relationship target with a ".." segment, naming the relationship, the target and why', async () => {
    const rels = (type: string, target: string) =>
      `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId9" Type="${DOC_RELS}/${type}" Target="${target}"/></Relationships>`;
    const rows = `<row r="1">${inline('A1', 'name')}</row><row r="2"><c r="A2" t="s"><v>0</v></c></row>`;
    const strings = `<?xml version="1.0"?><sst xmlns="${MAIN}"><si><t>Ada</t></si></sst>`;
    const styles = `<?xml version="1.0"?><styleSheet xmlns="${MAIN}"/>`;
    // Each part is in the zip where the target points once ".." is resolved; the decoder looks for it unresolved.
    await writeRawXlsx('rel-sheet.xlsx', sheetXml(rows), {
      'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="../sheet1.xml"/></Relationships>`,
      'sheet1.xml': sheetXml(rows),
      'xl/sharedStrings.xml': strings,
    });
    await writeRawXlsx('rel-strings.xlsx', sheetXml(rows), {
      'xl/_rels/workbook.xml.rels': rels('sharedStrings', '../strings.xml'),
      'strings.xml': strings,
    });
    await writeRawXlsx('rel-styles.xlsx', sheetXml(rows), {
      'xl/_rels/workbook.xml.rels': rels('styles', 'theme/../../styles.xml'),
      'xl/sharedStrings.xml': strings,
      'styles.xml': styles,
    });
    await writeRawXlsx('rel-outside.xlsx', sheetXml(rows), {
      'xl/_rels/workbook.xml.rels': rels('sharedStrings', '../../strings.xml'),
    });
    const cases = [
      [
        'rel-sheet.xlsx',
        'relationship "rId1" in xl/_rels/workbook.xml.rels (the worksheet of sheet "Data") has the target "../sheet1.xml", which is read as written, as xl/../sheet1.xml, not resolved to sheet1.xml: a target with "." or ".." segments is refused; write it as "/sheet1.xml"',
      ],
      [
        'rel-strings.xlsx',
        'relationship "rId9" in xl/_rels/workbook.xml.rels (the shared strings) has the target "../strings.xml", which is read as written, as xl/../strings.xml, not resolved to strings.xml: a target with "." or ".." segments is refused; write it as "/strings.xml"',
      ],
      [
        'rel-styles.xlsx',
        'relationship "rId9" in xl/_rels/workbook.xml.rels (the styles) has the target "theme/../../styles.xml", which is read as written, as xl/theme/../../styles.xml, not resolved to styles.xml: a target with "." or ".." segments is refused; write it as "/styles.xml"',
      ],
      [
        'rel-outside.xlsx',
        'relationship "rId9" in xl/_rels/workbook.xml.rels (the shared strings) has the target "../../strings.xml", which points outside the package',
      ],
    ] as const;
    for (const [name, why] of cases) {
      const error = await sourceErrorOf(async () => rowsOf(await openXlsx(name)));
      assert.equal(error.code, 'ingest.parse_error', name);
      assert.equal(error.detail, `${name} is not a readable XLSX file: ${why}`);
    }
    // The same parts under targets written without ".." are read.
    await writeRawXlsx('rel-absolute.xlsx', sheetXml(rows), {
      'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="/sheet1.xml"/><Relationship Id="rId9" Type="${DOC_RELS}/sharedStrings" Target="/strings.xml"/></Relationships>`,
      'sheet1.xml': sheetXml(rows),
      'strings.xml': strings,
    });
    assert.deepEqual(await rowsOf(await openXlsx('rel-absolute.xlsx')), [['Ada']]);
  });
});
