// Hand-written one-sheet XLSX workbooks (XML zipped with fflate) and loading them as load-generation does, for the
// tests of how a table serves XLSX cells.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import type { FieldType, FileSourceConfig, TableConfig } from '../config/schema.ts';
import { openFileSource } from '../sources/open-file-source.ts';
import { SourceError } from '../sources/source-error.ts';
import { buildTable } from './build-table.ts';
import { cellJson } from './column.ts';
import type { TableSnapshot } from './table-snapshot.ts';

let dir = '';

/** Gives the calling test file a fresh folder for its workbooks, removed after its tests. */
export function useWorkbookDir(): void {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ambit-build-xlsx-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
}

/** The folder the calling test file's workbooks are written to. */
export const workbookDir = (): string => dir;

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** Style 1: built-in date format 14; style 2: date-time format 22; style 3: a custom `yyyy-mm-dd hh:mm:ss`. */
const STYLES = `<?xml version="1.0"?><styleSheet xmlns="${MAIN}"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/></numFmts><cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="22" applyNumberFormat="1"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>`;

export interface Workbook {
  readonly rows: string;
  /** The `date1904` attribute of `workbookPr`, when set. */
  readonly date1904?: '1' | 'true';
  readonly sharedStrings?: readonly string[];
  /** Raw `<si>` elements of the shared strings part, written after those of `sharedStrings`. */
  readonly sharedStringItems?: string;
  /** Raw XML after sheetData, such as `<mergeCells>`. */
  readonly afterSheetData?: string;
  /** The sheet and shared strings parts written as Latin-1 bytes: a file that is not UTF-8. */
  readonly latin1?: boolean;
}

/** Writes a one-sheet workbook (sheet `Data`) whose sheetData is `rows`. */
export async function writeWorkbook(name: string, workbook: Workbook): Promise<void> {
  const shared = workbook.sharedStrings ?? [];
  const parts: Record<string, string> = {
    '[Content_Types].xml': `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}">${workbook.date1904 ? `<workbookPr date1904="${workbook.date1904}"/>` : '<workbookPr/>'}<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${DOC_RELS}/styles" Target="styles.xml"/><Relationship Id="rId3" Type="${DOC_RELS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    'xl/styles.xml': STYLES,
    'xl/sharedStrings.xml': `<?xml version="1.0"?><sst xmlns="${MAIN}" count="${shared.length}" uniqueCount="${shared.length}">${shared.map((text) => `<si><t xml:space="preserve">${text}</t></si>`).join('')}${workbook.sharedStringItems ?? ''}</sst>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${workbook.rows}</sheetData>${workbook.afterSheetData ?? ''}</worksheet>`,
  };
  const latin1 = (path: string) =>
    workbook.latin1 === true && (path === 'xl/worksheets/sheet1.xml' || path === 'xl/sharedStrings.xml');
  const entries = Object.fromEntries(
    Object.entries(parts).map(([path, text]) => [path, strToU8(text, latin1(path))]),
  );
  await writeFile(join(dir, name), zipSync(entries));
}

export const text = (ref: string, value: string) =>
  `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${value}</t></is></c>`;
export const num = (ref: string, value: number | string, style?: number) =>
  `<c r="${ref}"${style === undefined ? '' : ` s="${style}"`}><v>${value}</v></c>`;
export const row = (r: number, cells: string) => `<row r="${r}">${cells}</row>`;
export const header = (...names: string[]) =>
  row(1, names.map((name, i) => text(`${String.fromCharCode(65 + i)}1`, name)).join(''));

export type Field = readonly [name: string, type: FieldType, nullable?: boolean];

export function table(path: string, fields: readonly Field[]): TableConfig {
  return {
    id: 'households',
    source: { type: 'file', path },
    primary_key: (fields[0] as Field)[0],
    schema: {
      strict: false,
      fields: fields.map(([name, type, nullable]) => ({
        name,
        type,
        nullable: nullable ?? true,
        sensitive: false,
      })),
    },
  };
}

/** Loads the table as load-generation does for an XLSX file. */
export async function load(config: TableConfig): Promise<TableSnapshot> {
  const source = await openFileSource(config.id, config.source as FileSourceConfig, {
    baseDir: dir,
    maxFileBytes: 1e9,
    xlsxMaxFileBytes: 1e9,
  });
  return buildTable({
    config,
    columns: source.columns,
    batches: source.batches,
    columnBatches: source.columnBatches,
    rowNumber: source.rowNumber,
    excelSerials: true,
    version: 'v',
    loadedAt: 0,
    byteSize: source.byteSize,
  });
}

/** The served values of each row (rows in primary-key order), field by field. */
export function served(snapshot: TableSnapshot): Record<string, unknown>[] {
  return Array.from({ length: snapshot.rowCount }, (_, r) =>
    Object.fromEntries(
      snapshot.config.schema.fields.map((field) => {
        const column = snapshot.columns.get(field.name);
        assert.ok(column);
        return [field.name, cellJson(column, r)];
      }),
    ),
  );
}

export async function loadError(config: TableConfig): Promise<SourceError> {
  try {
    await load(config);
  } catch (error) {
    assert.ok(error instanceof SourceError, String(error));
    return error;
  }
  assert.fail('expected the load to fail');
}
