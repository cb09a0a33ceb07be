// Shared by the file source tests: every row a source yields, and the SourceError a load fails with.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { SourceRows } from './open-file-source.ts';
import { SourceError } from './source-error.ts';
import { fileVersion, type SourceFile } from './source-file.ts';

export async function rowsOf(source: SourceRows): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for await (const batch of source.batches) rows.push(...batch);
  return rows;
}

export async function sourceErrorOf(work: () => Promise<unknown>): Promise<SourceError> {
  try {
    await work();
  } catch (error) {
    assert.ok(error instanceof SourceError, `expected a SourceError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a SourceError');
}

/**
 * Runs `work` against a FIFO at `path` while a writer waits to open it. A reader that blocks on the open meets the
 * writer, which then closes, so such a reader sees an empty stream instead of hanging the test; a reader that does
 * not block leaves the writer waiting, and it is released here by a reader that does not block either.
 */
export async function withWaitingWriter<T>(path: string, work: () => Promise<T>): Promise<T> {
  execFileSync('mkfifo', [path]);
  const writer = open(path, 'w').then((handle) => handle.close());
  try {
    return await work();
  } finally {
    const release = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    await writer;
    await release.close();
  }
}

/** The CSV format a config gets without `format`: a header row, commas, double quotes. */
export const DEFAULT_CSV = { header_row: true, delimiter: ',', quote: '"' };

/** The file `name` of `dir` as the size guard passes it to a reader (table `people`). */
export async function csvFileOf(dir: string, name: string): Promise<SourceFile> {
  const stats = await stat(join(dir, name));
  return {
    tableId: 'people',
    absolutePath: join(dir, name),
    displayPath: name,
    byteSize: stats.size,
    version: fileVersion(stats),
  };
}

/** The namespaces of an XLSX package's parts. */
export const XLSX_NS = {
  main: 'http://schemas.openxmlformats.org/spreadsheetml/2006/main',
  rels: 'http://schemas.openxmlformats.org/package/2006/relationships',
  docRels: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
} as const;

export interface RawXlsx {
  /** The sheet's name as written in workbook.xml (XML-escaped), `Data` by default. */
  readonly sheetName?: string;
  /** The sheet's relationship target, `worksheets/sheet1.xml` by default. */
  readonly sheetTarget?: string;
  /** Parts added or replaced, by path. */
  readonly parts?: Readonly<Record<string, string>>;
}

/**
 * A one-sheet workbook written part by part and zipped, for XML that write-excel-file does not produce: the sheet
 * part is `xl/worksheets/sheet1.xml` whatever `sheetTarget` says (replace or add parts to match another target).
 */
export function rawXlsx(sheetXml: string, options: RawXlsx = {}): Uint8Array {
  const { main, rels, docRels } = XLSX_NS;
  const parts: Record<string, string> = {
    '[Content_Types].xml': `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="${rels}"><Relationship Id="rId1" Type="${docRels}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="${main}" xmlns:r="${docRels}"><sheets><sheet name="${options.sheetName ?? 'Data'}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${rels}"><Relationship Id="rId1" Type="${docRels}/worksheet" Target="${options.sheetTarget ?? 'worksheets/sheet1.xml'}"/></Relationships>`,
    'xl/worksheets/sheet1.xml': sheetXml,
    ...options.parts,
  };
  return zipSync(Object.fromEntries(Object.entries(parts).map(([path, text]) => [path, strToU8(text)])));
}

/** An inline-string cell. */
export const inlineCell = (ref: string, text: string) =>
  `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

/** A worksheet part holding `rows` (`<row>` elements). */
export const sheetXmlOf = (rows: string) =>
  `<?xml version="1.0"?><worksheet xmlns="${XLSX_NS.main}"><sheetData>${rows}</sheetData></worksheet>`;
