// Opens an XLSX zip (fflate, by its central directory) far enough to list its sheets and hand back one sheet's XML,
// and gives read-excel-file a copy of the workbook made of the parts that directory lists.
import { constants } from 'node:buffer';
import { posix } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { decode, Parser } from 'saxen';
import { CellOrderError, withCellReferences } from './sheet-cell-references.ts';
import type { SourceError } from './source-error.ts';
import { type SourceFile, sourceError } from './source-file.ts';

/** Declared uncompressed size of the XML parts read-excel-file inflates; refuses zip bombs cheaply. */
export const XLSX_MAX_UNCOMPRESSED_BYTES = 1024 * 1024 * 1024;
/** V8's longest string, in UTF-16 code units: the most text one XML part can be decoded to. */
export const XLSX_MAX_PART_CHARS = constants.MAX_STRING_LENGTH;

const WORKBOOK = 'xl/workbook.xml';
const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';
const SHARED_STRINGS = 'xl/sharedStrings.xml';
const RELATIONSHIP_BASES = [
  'http://schemas.openxmlformats.org/officeDocument/2006/',
  'http://purl.oclc.org/ooxml/officeDocument/',
].map((base) => `${base}relationships/`);
/** A cell that may be a shared string: `t="s"`, prefixed or not, or spelled with a character reference. */
const MAY_HOLD_SHARED_STRING = /[\s:]t\s*=\s*(["'])(?:s|&[^"'<]*)\1/;

export interface XlsxPackage {
  readonly sheetNames: readonly string[];
  /** The sheet chosen: the one named in the config, else the first. */
  readonly sheetName: string;
  /** The worksheet part's path in the zip. */
  readonly sheetPath: string;
  /**
   * The worksheet XML as plainXml gives it (CDATA sections as plain text, comments dropped), with a reference
   * written into each cell that has none (see withCellReferences).
   */
  readonly sheetXml: string;
  /** Whether sheetXml differs from the stored part. */
  readonly sheetRewritten: boolean;
  /** The shared strings part's path, found as read-excel-file finds it. */
  readonly sharedStringsPath: string;
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
  const { byId, sharedStrings, styles } =
    rels === undefined ? { byId: new Map<string, Relationship>() } : relationships(file, rels);
  const relationship = byId.get(chosen.relationId);
  if (relationship === undefined) {
    throw corrupt(file, `sheet ${JSON.stringify(chosen.name)} has no worksheet part`);
  }
  const sheetPath = partPath(file, relationship, `the worksheet of sheet ${JSON.stringify(chosen.name)}`);
  const sharedStringsPath = sharedStrings && partPath(file, sharedStrings, 'the shared strings');
  if (styles !== undefined) partPath(file, styles, 'the styles');
  const sheetXml = unzip(file, bytes, (name) => name === sheetPath).get(sheetPath);
  if (sheetXml === undefined)
    throw corrupt(file, `the worksheet part of sheet ${JSON.stringify(chosen.name)} is missing`);
  const where = `the worksheet part of sheet ${JSON.stringify(chosen.name)} (${sheetPath})`;
  const stored = text(file, where, sheetXml);
  const plain = plainPart(file, where, stored);
  const referenced = referencedPart(file, chosen.name, plain ?? stored);
  return {
    sheetNames,
    sheetName: chosen.name,
    sheetPath,
    sheetXml: referenced ?? plain ?? stored,
    sheetRewritten: referenced !== undefined || plain !== undefined,
    sharedStringsPath: sharedStringsPath ?? SHARED_STRINGS,
    date1904,
  };
}

/**
 * The workbook read-excel-file is to read: its XML parts as the central directory lists them, zipped again (stored,
 * not compressed), which costs about the XML's size once more. read-excel-file reads a zip by its local headers,
 * so given `bytes` it would also inflate an entry the directory leaves out: one the checks never saw, and past
 * XLSX_MAX_UNCOMPRESSED_BYTES (kilobytes of it can expand to gigabytes). The sheet and the shared strings it may
 * use are written as plainXml gives them; the shared strings are inflated (again, after the sheet) only for a
 * sheet that may use them.
 */
export function decodableWorkbook(file: SourceFile, bytes: Buffer, xlsx: XlsxPackage): Buffer {
  const path = xlsx.sharedStringsPath;
  let sharedStrings: string | undefined;
  if (MAY_HOLD_SHARED_STRING.test(xlsx.sheetXml)) {
    const part = unzip(file, bytes, (name) => name === path).get(path);
    if (part !== undefined) sharedStrings = plainPart(file, path, text(file, path, part));
  }
  const parts = unzip(file, bytes, (name) => name.endsWith('.xml') || name.endsWith('.rels'));
  if (xlsx.sheetRewritten) parts.set(xlsx.sheetPath, strToU8(xlsx.sheetXml));
  if (sharedStrings !== undefined) parts.set(path, strToU8(sharedStrings));
  // A Buffer: read-excel-file takes any other Uint8Array for a file path.
  const zipped = zipSync(Object.fromEntries(parts), { level: 0 });
  return Buffer.from(zipped.buffer, zipped.byteOffset, zipped.byteLength);
}

const CDATA_OPEN = '<![CDATA[';

/**
 * The XML with each CDATA section written as escaped text and each comment dropped, or undefined when it has
 * neither (the usual case, told by a substring search). read-excel-file reads only plain text nodes: it would read
 * `<t><![CDATA[Ada]]></t>` as empty, and `<t>Ada<!-- x -->Lovelace</t>` as `Lovelace`. `<` starts markup wherever
 * it occurs outside these (text and attribute values cannot hold it), so the scan only looks at `<!` and `<?`.
 * Throws an Error saying why for a section not closed, or for a `<!DOCTYPE>`: its entities are not read, so a
 * reference to one would be served as its name (and one naming a file is never opened).
 */
export function plainXml(xml: string): string | undefined {
  // `<!` opens a CDATA section, a comment or a declaration, and nothing else.
  if (!xml.includes('<!')) return undefined;
  const pieces: string[] = [];
  let from = 0;
  const markup = /<[!?]/g;
  for (let match = markup.exec(xml); match !== null; match = markup.exec(xml)) {
    const at = match.index;
    let end: number;
    if (xml.startsWith('<?', at)) {
      markup.lastIndex = closing(xml, '?>', at + 2, 'a processing instruction');
      continue;
    }
    if (xml.startsWith('<!--', at)) {
      end = closing(xml, '-->', at + 4, 'a comment');
      pieces.push(xml.slice(from, at));
    } else if (xml.startsWith(CDATA_OPEN, at)) {
      end = closing(xml, ']]>', at + CDATA_OPEN.length, 'a CDATA section');
      pieces.push(xml.slice(from, at), escapeText(xml.slice(at + CDATA_OPEN.length, end - 3)));
    } else {
      throw new Error('it has a <!DOCTYPE> or other declaration, which is not read');
    }
    from = end;
    markup.lastIndex = end;
  }
  pieces.push(xml.slice(from));
  return pieces.join('');
}

/** Just past the first `close` from `from`: the end of the markup whose body starts there. */
function closing(xml: string, close: string, from: number, what: string): number {
  const end = xml.indexOf(close, from);
  if (end < 0) throw new Error(`${what} is not closed`);
  return end + close.length;
}

function escapeText(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function plainPart(file: SourceFile, part: string, xml: string): string | undefined {
  try {
    return plainXml(xml);
  } catch (error) {
    throw corrupt(file, `${part} is not well-formed XML: ${(error as Error).message}`, error);
  }
}

/** The sheet with every cell referenced (see withCellReferences), or undefined when it already is. */
function referencedPart(file: SourceFile, sheetName: string, xml: string): string | undefined {
  try {
    return withCellReferences(xml);
  } catch (error) {
    const sheet = `sheet ${JSON.stringify(sheetName)}`;
    if (error instanceof CellOrderError) {
      const detail = `${file.displayPath} is not a readable XLSX file: ${sheet} cannot be decoded: ${error.message}`;
      throw sourceError(file, 'ingest.parse_error', detail, { cell: error.ref });
    }
    if (!(error instanceof RangeError)) throw error;
    const detail = `${file.displayPath} has a ${sheet} too large once each of its cells is given its reference`;
    throw sourceError(file, 'ingest.file_too_large', detail, { cause: error });
  }
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
    const why = isCompoundFile(bytes)
      ? 'it is an OLE compound file, as a password-protected workbook or an .xls file is: save it as .xlsx without a password'
      : 'it is not a valid zip archive (corrupt or truncated)';
    throw corrupt(file, why, error);
  }
}

/** The OLE compound file signature: Excel encrypts a protected workbook into one, and wrote .xls files as one. */
const COMPOUND_FILE = Buffer.from('d0cf11e0a1b11ae1', 'hex');

function isCompoundFile(bytes: Uint8Array): boolean {
  return COMPOUND_FILE.equals(bytes.subarray(0, COMPOUND_FILE.length));
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

/** A relationship of the workbook: its Id, if any, and its target as written. */
interface Relationship {
  readonly id: string | undefined;
  readonly target: string;
}

/**
 * The workbook's relationships by id, and its shared strings and styles relationships as read-excel-file takes
 * them (the last one of each type).
 */
function relationships(
  file: SourceFile,
  rels: Uint8Array,
): { byId: Map<string, Relationship>; sharedStrings?: Relationship; styles?: Relationship } {
  const byId = new Map<string, Relationship>();
  const typed: { sharedStrings?: Relationship; styles?: Relationship } = {};
  parseXml(file, WORKBOOK_RELS, rels, (name, attributes) => {
    if (name !== 'Relationship' || attributes.Target === undefined) return;
    const id = attributes.Id === undefined ? undefined : decode(attributes.Id);
    const relationship = { id, target: decode(attributes.Target) };
    if (id !== undefined) byId.set(id, relationship);
    const type = decode(attributes.Type ?? '');
    const base = RELATIONSHIP_BASES.find((prefix) => type.startsWith(prefix));
    const kind = base === undefined ? undefined : type.slice(base.length);
    if (kind === 'sharedStrings' || kind === 'styles') typed[kind] = relationship;
  });
  return { byId, ...typed };
}

/**
 * The part a workbook relationship names, found as read-excel-file finds it: from the package root for a target
 * starting with `/`, else under `xl/`, either way as written. A target with `.` or `..` segments is refused, as
 * read-excel-file would look for it unresolved and miss the part (a sheet it cannot decode, shared strings or
 * styles it takes for absent); `role` says what the relationship is for.
 */
function partPath(file: SourceFile, { id, target }: Relationship, role: string): string {
  const path = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  if (!path.split('/').some((segment) => segment === '.' || segment === '..')) return path;
  const relationship =
    id === undefined ? 'a relationship without an Id' : `relationship ${JSON.stringify(id)}`;
  const named = `${relationship} in ${WORKBOOK_RELS} (${role}) has the target ${JSON.stringify(target)}`;
  const resolved = posix.normalize(path);
  if (resolved === '..' || resolved.startsWith('../')) {
    throw corrupt(file, `${named}, which points outside the package`);
  }
  throw corrupt(
    file,
    `${named}, which is read as written, as ${path}, not resolved to ${resolved}: a target with "." or ".." segments is refused; write it as ${JSON.stringify(`/${resolved}`)}`,
  );
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
  const xml = text(file, part, bytes);
  // saxen skips a <!DOCTYPE> and leaves references to its entities as they are: refused, as in the sheet.
  plainPart(file, part, xml);
  try {
    parser.parse(xml);
  } catch (error) {
    throw corrupt(file, `${part} is not well-formed XML`, error);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A part's text. Bytes that are not UTF-8 are refused, as in CSV and Parquet, never served as U+FFFD; a part whose
 * text would be longer than a string can be is refused as too large.
 */
function text(file: SourceFile, part: string, bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch (error) {
    if (isStringTooLong(error)) throw partTooLarge(file, part, error);
    throw corrupt(file, `${part} is not UTF-8 text`, error);
  }
}

/**
 * Whether `error` says a string would be longer than XLSX_MAX_PART_CHARS: Node's ERR_STRING_TOO_LONG (thrown by
 * TextDecoder and Buffer#toString before any text is made), or V8's own RangeError (joining or repeating strings).
 */
export function isStringTooLong(error: unknown): boolean {
  if (error instanceof RangeError) return error.message === 'Invalid string length';
  return error instanceof Error && (error as { code?: unknown }).code === 'ERR_STRING_TOO_LONG';
}

/** The refusal of a part (`part` names it, or says which parts) whose text is longer than a string can be. */
export function partTooLarge(file: SourceFile, part: string, cause: unknown): SourceError {
  const detail = `${file.displayPath} is too large to read: ${part} expands to more than ${XLSX_MAX_PART_CHARS} characters of text, the most one XML part may hold`;
  return sourceError(file, 'ingest.file_too_large', detail, { cause });
}

function corrupt(file: SourceFile, why: string, cause?: unknown): SourceError {
  return sourceError(file, 'ingest.parse_error', `${file.displayPath} is not a readable XLSX file: ${why}`, {
    cause,
  });
}
