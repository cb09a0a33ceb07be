// An XLSX part whose text is longer than V8's longest string (about 512 Mi characters) cannot be read: the load must
// fail as a file too large, naming the part and the limit, not as a part that is not UTF-8. Such a part takes over
// 512 MiB to build, so these tests have the text decoder fail as V8 does for the part marked; the sheet is decoded
// here rather than in the decoder thread, where the stand-in would not reach.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { decodeXlsxSheet } from './decode-xlsx-sheet.ts';
import { isStringTooLong, XLSX_MAX_PART_CHARS } from './open-xlsx-package.ts';
import type { SourceFile } from './source-file.ts';
import { sourceErrorOf } from './source-test-support.ts';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const MARK = 'PART-TOO-LONG';

/** What Node throws for a string over V8's longest (TextDecoder#decode, Buffer#toString). */
const nodeStringTooLong = () =>
  Object.assign(new Error('Cannot create a string longer than 0x1fffffe8 characters'), {
    code: 'ERR_STRING_TOO_LONG',
  });

/** Text decoding fails as for a part too long wherever the bytes hold MARK; other parts decode as usual. */
function partsWithMarkTooLong(t: TestContext): void {
  const decode = TextDecoder.prototype.decode;
  t.mock.method(
    TextDecoder.prototype,
    'decode',
    function (this: InstanceType<typeof TextDecoder>, input?: Uint8Array) {
      if (
        input !== undefined &&
        Buffer.from(input.buffer, input.byteOffset, input.byteLength).includes(MARK)
      ) {
        throw nodeStringTooLong();
      }
      return decode.call(this, input);
    },
  );
}

/** A workbook whose sheet "Data" uses a shared string; sheet "Other" is not read. */
function workbook(mark: { sheet?: boolean; strings?: boolean; other?: boolean }): Buffer {
  const sheet = (text: string) =>
    `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>${text}</t></is></c></row><row r="2"><c r="A2" t="s"><v>0</v></c></row></sheetData></worksheet>`;
  const parts: Record<string, string> = {
    '[Content_Types].xml': `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/><sheet name="Other" sheetId="2" r:id="rId2"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet2.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml': sheet(mark.sheet ? MARK : 'name'),
    'xl/worksheets/sheet2.xml': sheet(mark.other ? MARK : 'other'),
    'xl/sharedStrings.xml': `<?xml version="1.0"?><sst xmlns="${MAIN}"><si><t>${mark.strings ? MARK : 'Ada'}</t></si></sst>`,
  };
  const zipped = zipSync(
    Object.fromEntries(Object.entries(parts).map(([path, text]) => [path, strToU8(text)])),
  );
  return Buffer.from(zipped);
}

const file = (displayPath: string): SourceFile => ({
  tableId: 'households',
  absolutePath: `/data/${displayPath}`,
  displayPath,
  byteSize: 0,
  version: '1',
});
const WHOLE_SHEET = { firstRow: 1, lastRow: Infinity, firstColumn: 1, lastColumn: Infinity };

describe('readXlsx parts longer than a string can be', () => {
  it('reads the workbook when no part is too long', async () => {
    const sheet = await decodeXlsxSheet(file('plain.xlsx'), workbook({}), undefined, WHOLE_SHEET);
    assert.deepEqual(sheet.rows, [['Ada']]);
  });

  it('refuses the sheet or the shared strings as too large, naming the part and the limit', async (t) => {
    partsWithMarkTooLong(t);
    const cases = [
      ['sheet.xlsx', { sheet: true }, 'the worksheet part of sheet "Data" (xl/worksheets/sheet1.xml)'],
      ['strings.xlsx', { strings: true }, 'xl/sharedStrings.xml'],
    ] as const;
    for (const [name, mark, part] of cases) {
      const error = await sourceErrorOf(() =>
        decodeXlsxSheet(file(name), workbook(mark), undefined, WHOLE_SHEET),
      );
      assert.equal(error.code, 'ingest.file_too_large', name);
      assert.equal(
        error.detail,
        `${name} is too large to read: ${part} expands to more than ${XLSX_MAX_PART_CHARS} characters of text, the most one XML part may hold`,
      );
    }
  });

  it('refuses another part too long for the decoder as too large', async (t) => {
    partsWithMarkTooLong(t);
    const error = await sourceErrorOf(() =>
      decodeXlsxSheet(file('other.xlsx'), workbook({ other: true }), 'Data', WHOLE_SHEET),
    );
    assert.equal(error.code, 'ingest.file_too_large');
    assert.equal(
      error.detail,
      `other.xlsx is too large to read: one of its XML parts expands to more than ${XLSX_MAX_PART_CHARS} characters of text, the most one XML part may hold`,
    );
  });
});

describe('isStringTooLong', () => {
  it("tells V8's and Node's string length errors from other errors", () => {
    const thrown = (make: () => unknown): unknown => {
      try {
        make();
      } catch (error) {
        return error;
      }
      assert.fail('expected an error');
    };
    assert.equal(isStringTooLong(thrown(() => 'x'.repeat(2 ** 30))), true);
    assert.equal(isStringTooLong(nodeStringTooLong()), true);
    const notUtf8 = thrown(() => new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.of(0xff)));
    assert.equal(isStringTooLong(notUtf8), false);
    assert.equal(isStringTooLong(thrown(() => new Array(-1))), false);
    assert.equal(
      isStringTooLong(new Error('Cannot create a string longer than 0x1fffffe8 characters')),
      false,
    );
    assert.equal(isStringTooLong('ERR_STRING_TOO_LONG'), false);
  });
});
