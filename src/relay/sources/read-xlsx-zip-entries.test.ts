// XLSX zips whose entries are not all listed in the central directory: the workbook is read as the directory
// lists it (as Excel and every zip tool read it), never from entries hidden between the listed ones.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { openFileSource } from './open-file-source.ts';
import { rowsOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-xlsx-entries-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const SHEET = 'xl/worksheets/sheet1.xml';

const sheet = (name: string) =>
  `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>${name}</t></is></c></row></sheetData></worksheet>`;

function workbook(sheetXml: string): Uint8Array {
  const parts: Record<string, string> = {
    '[Content_Types].xml': `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/${SHEET}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    [SHEET]: sheetXml,
  };
  return zipSync(Object.fromEntries(Object.entries(parts).map(([path, text]) => [path, strToU8(text)])));
}

/** Offset of the central directory, from the end-of-central-directory record. */
function centralDirectoryAt(zip: Uint8Array): number {
  const bytes = Buffer.from(zip);
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  return bytes.readUInt32LE(end + 16);
}

/** `zip` with the entries of `hidden` written after its own but left out of its central directory. */
function withHiddenEntries(zip: Uint8Array, hidden: Record<string, Uint8Array>): Buffer {
  const extra = zipSync(hidden);
  const local = extra.subarray(0, centralDirectoryAt(extra));
  const at = centralDirectoryAt(zip);
  const out = Buffer.concat([zip.subarray(0, at), local, zip.subarray(at)]);
  const end = out.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  out.writeUInt32LE(at + local.length, end + 16);
  return out;
}

const open = (name: string) =>
  openFileSource(
    'people',
    { type: 'file', path: name },
    { baseDir: dir, maxFileBytes: 1 << 26, xlsxMaxFileBytes: 1 << 26 },
  );

describe('readXlsx over a zip with entries its central directory does not list', () => {
  it('serves the sheet the directory lists, not a second copy hidden after it', async () => {
    const zip = withHiddenEntries(workbook(sheet('listed')), { [SHEET]: strToU8(sheet('hidden')) });
    await writeFile(join(dir, 'shadowed.xlsx'), zip);
    const source = await open('shadowed.xlsx');
    assert.deepEqual(await rowsOf(source), [['listed']]);
  });

  it('never inflates a hidden part, so one that is no valid deflate data does not fail the load', async () => {
    // Were hidden parts inflated, a few kilobytes could expand to gigabytes past every size check.
    const zip = withHiddenEntries(workbook(sheet('listed')), {
      'xl/padding.xml': strToU8('x'.repeat(100_000)),
    });
    // Corrupt the hidden part's deflate data: only an archive read by its local headers meets it.
    const at = zip.indexOf(Buffer.from('xl/padding.xml')) + 'xl/padding.xml'.length;
    zip.fill(0xff, at, at + 64);
    await writeFile(join(dir, 'hidden-part.xlsx'), zip);
    const source = await open('hidden-part.xlsx');
    assert.deepEqual(await rowsOf(source), [['listed']]);
  });
});
