// Opens an XLSX zip (fflate, as read-excel-file uses) far enough to list its sheets and hand back one sheet's XML.
import { posix } from 'node:path';
import { unzipSync } from 'fflate';
import { decode, Parser } from 'saxen';
import type { SourceError } from './source-error.ts';
import { type SourceFile, sourceError } from './source-file.ts';

/** Declared uncompressed size of the XML parts read-excel-file inflates; refuses zip bombs cheaply. */
export const XLSX_MAX_UNCOMPRESSED_BYTES = 1024 * 1024 * 1024;

const WORKBOOK = 'xl/workbook.xml';
const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';

export interface XlsxPackage {
  readonly sheetNames: readonly string[];
  /** The sheet chosen: the one named in the config, else the first. */
  readonly sheetName: string;
  readonly sheetXml: string;
  /** The workbook counts date serials from 1904-01-01 (`<workbookPr date1904="1"/>`), not from 1899-12-30. */
  readonly date1904: boolean;
}

export function openXlsxPackage(file: SourceFile, bytes: Uint8Array, sheet: string | undefined): XlsxPackage {
  let declared = 0;
  const parts = unzip(file, bytes, (name, originalSize) => {
    if (name.endsWith('.xml') || name.endsWith('.rels')) declared += originalSize;
    return name === WORKBOOK || name === WORKBOOK_RELS;
  });
  if (declared > XLSX_MAX_UNCOMPRESSED_BYTES) {
    throw sourceError(
      file,
      'ingest.file_too_large',
      `${file.displayPath} expands to ${declared} bytes of XML, over the limit of ${XLSX_MAX_UNCOMPRESSED_BYTES}`,
    );
  }
  const workbook = parts.get(WORKBOOK);
  if (workbook === undefined) throw corrupt(file, `it has no ${WORKBOOK}`);
  const { sheets, date1904 } = readWorkbook(file, workbook);
  const chosen = sheet === undefined ? sheets[0] : sheets.find((candidate) => candidate.name === sheet);
  const sheetNames = sheets.map((candidate) => candidate.name);
  if (chosen === undefined) {
    if (sheet === undefined) throw corrupt(file, 'it has no sheets');
    throw sourceError(
      file,
      'ingest.sheet_not_found',
      `${file.displayPath} has no sheet ${JSON.stringify(sheet)}; available sheets: ${sheetNames.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  const rels = parts.get(WORKBOOK_RELS);
  const target = rels === undefined ? undefined : relationshipTargets(file, rels).get(chosen.relationId);
  if (target === undefined) throw corrupt(file, `sheet ${JSON.stringify(chosen.name)} has no worksheet part`);
  const sheetPath = target.startsWith('/') ? target.slice(1) : posix.normalize(`xl/${target}`);
  const sheetXml = unzip(file, bytes, (name) => name === sheetPath).get(sheetPath);
  if (sheetXml === undefined)
    throw corrupt(file, `the worksheet part of sheet ${JSON.stringify(chosen.name)} is missing`);
  return { sheetNames, sheetName: chosen.name, sheetXml: text(sheetXml), date1904 };
}

function unzip(
  file: SourceFile,
  bytes: Uint8Array,
  keep: (name: string, originalSize: number) => boolean,
): Map<string, Uint8Array> {
  try {
    return new Map(
      Object.entries(unzipSync(bytes, { filter: (entry) => keep(entry.name, entry.originalSize) })),
    );
  } catch (error) {
    throw corrupt(file, 'it is not a valid zip archive (corrupt or truncated)', error);
  }
}

/** The sheets of the workbook, and its date system (the first `workbookPr` counts, as in read-excel-file). */
function readWorkbook(
  file: SourceFile,
  workbook: Uint8Array,
): { sheets: { name: string; relationId: string }[]; date1904: boolean } {
  const sheets: { name: string; relationId: string }[] = [];
  let date1904: boolean | undefined;
  parseXml(file, WORKBOOK, workbook, (name, attributes) => {
    if (name === 'workbookPr') {
      // An xsd:boolean: `1` or `true`.
      const flag = attributes.date1904?.trim();
      date1904 ??= flag === '1' || flag === 'true';
      return;
    }
    if (name !== 'sheet') return;
    const relationId = Object.entries(attributes).find(([key]) => key.endsWith(':id'))?.[1];
    if (attributes.name !== undefined && relationId !== undefined) {
      sheets.push({ name: decode(attributes.name), relationId: decode(relationId) });
    }
  });
  return { sheets, date1904: date1904 ?? false };
}

function relationshipTargets(file: SourceFile, rels: Uint8Array): Map<string, string> {
  const targets = new Map<string, string>();
  parseXml(file, WORKBOOK_RELS, rels, (name, attributes) => {
    if (name === 'Relationship' && attributes.Id !== undefined && attributes.Target !== undefined) {
      targets.set(decode(attributes.Id), decode(attributes.Target));
    }
  });
  return targets;
}

/** Calls `onElement` with each element's local name (namespace prefix dropped) and raw attributes. */
function parseXml(
  file: SourceFile,
  part: string,
  bytes: Uint8Array,
  onElement: (localName: string, attributes: Record<string, string>) => void,
): void {
  const parser = new Parser();
  parser.on('openTag', (name, attributes) => onElement(name.slice(name.indexOf(':') + 1), attributes()));
  try {
    parser.parse(text(bytes));
  } catch (error) {
    throw corrupt(file, `${part} is not well-formed XML`, error);
  }
}

function text(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

function corrupt(file: SourceFile, why: string, cause?: unknown): SourceError {
  return sourceError(file, 'ingest.parse_error', `${file.displayPath} is not a readable XLSX file: ${why}`, {
    cause,
  });
}
