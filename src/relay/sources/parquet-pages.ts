// The page headers of a column chunk, checked before hyparquet decodes the chunk. hyparquet allocates what a
// header declares (the bytes a page decompresses to, one slot per value), and a header is a few bytes anyone can
// write: a small file could otherwise make a load allocate gigabytes. One header is read per page, no value.
import { type ColumnMetaData, type FileMetaData, parquetSchema } from 'hyparquet';
import { type SourceFile, sourceError } from './source-file.ts';

/** Largest page decompressed. Writers cut pages near 1 MiB; a whole column chunk in one page stays well below. */
export const PARQUET_MAX_PAGE_BYTES = 256 * 1024 * 1024;

const DATA_PAGE = 0;
const DICTIONARY_PAGE = 2;
const DATA_PAGE_V2 = 3;
/** Page headers nest two structs deep (statistics); more is not a page header. */
const MAX_DEPTH = 8;

/** One column chunk of a row group: its bytes in the file and how many values its pages may hold in all. */
export interface ChunkExtent {
  readonly column: string;
  readonly start: number;
  readonly end: number;
  /** A flat column is read until it has the row group's rows, as hyparquet does; a nested one to its end. */
  readonly flat: boolean;
  /** The row group's rows for a flat column, the value count the footer declares for a nested one. */
  readonly maxValues: number;
}

interface PageProblem {
  readonly code: 'ingest.parse_error' | 'ingest.file_too_large';
  readonly why: string;
}

/**
 * Whether a chunk is of a column hyparquet reads as flat: top-level, unrepeated primitive columns, one value per
 * row. Takes the file's metadata once, the chunk's path each time.
 */
function flatChunks(metadata: FileMetaData): (meta: ColumnMetaData) => boolean {
  const flat = new Set<string>();
  for (const { element, children } of parquetSchema(metadata).children) {
    if (children.length === 0 && element.repetition_type !== 'REPEATED') flat.add(element.name);
  }
  return (meta) => meta.path_in_schema.length === 1 && flat.has(meta.path_in_schema[0] ?? '');
}

/** The byte ranges hyparquet reads the chunks of one row group from (the same arithmetic as its read plan). */
export function chunkExtents(metadata: FileMetaData, groupIndex: number): ChunkExtent[] {
  const group = metadata.row_groups[groupIndex];
  if (group === undefined) return [];
  const isFlatChunk = flatChunks(metadata);
  const extents: ChunkExtent[] = [];
  for (const chunk of group.columns) {
    const meta = chunk.meta_data;
    if (meta === undefined) continue;
    // Number each: a footer can write either as i32 or i64, and adding a number to a bigint throws.
    const offset = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const isFlat = isFlatChunk(meta);
    extents.push({
      column: meta.path_in_schema.join('.'),
      start: offset,
      end: offset + Number(meta.total_compressed_size),
      flat: isFlat,
      maxValues: isFlat ? Number(group.num_rows) : Math.max(Number(meta.num_values), 0),
    });
  }
  return extents;
}

/** The values the footer declares for nested (list, map or struct) leaves, which are not one per row. */
export function nestedValueCount(metadata: FileMetaData): number {
  const isFlatChunk = flatChunks(metadata);
  let values = 0;
  for (const group of metadata.row_groups) {
    for (const { meta_data: meta } of group.columns) {
      if (meta && !isFlatChunk(meta)) values += Math.max(Number(meta.num_values), 0);
    }
  }
  return values;
}

/**
 * Checks the page headers of every chunk of the row group that a slice of the file holds whole. hyparquet reads
 * each chunk from one slice holding it (the same range arithmetic), so no page is decoded before this.
 */
export function checkPages(
  file: SourceFile,
  groupIndex: number,
  extents: readonly ChunkExtent[],
  bytes: Uint8Array,
  start: number,
): void {
  for (const extent of extents) {
    if (!(extent.start >= start && extent.end <= start + bytes.length)) continue;
    const problem = checkChunkPages(bytes.subarray(extent.start - start, extent.end - start), extent);
    if (problem === undefined) continue;
    const where = `row group ${groupIndex + 1}, column ${JSON.stringify(extent.column)}, ${problem.why}`;
    throw sourceError(
      file,
      problem.code,
      problem.code === 'ingest.parse_error'
        ? `${file.displayPath} is not a readable Parquet file: ${where}`
        : `${file.displayPath} holds a page over the limit the relay reads: ${where}`,
    );
  }
}

/** The first page of the chunk whose header asks for more than the chunk can hold, or undefined. */
function checkChunkPages(bytes: Uint8Array, extent: ChunkExtent): PageProblem | undefined {
  const reader: Reader = { bytes, offset: 0 };
  let values = 0;
  // A flat column ends once it has the row group's values, as hyparquet reads it; a nested one with its chunk.
  for (let page = 1; reader.offset < bytes.length - 1; page++) {
    if (extent.flat && values >= extent.maxValues) break;
    let header: Struct;
    try {
      header = readStruct(reader, 0);
    } catch {
      return { code: 'ingest.parse_error', why: `the header of page ${page} cannot be decoded` };
    }
    const problem = checkPage(header, bytes.length - reader.offset, extent.maxValues - values);
    if (problem !== undefined) return { code: problem.code, why: `page ${page} ${problem.why}` };
    values += pageValues(header);
    reader.offset += field(header, 3);
  }
  return undefined;
}

/** What one page header declares against the bytes left in its chunk and the values left to it. */
function checkPage(header: Struct, bytesLeft: number, valuesLeft: number): PageProblem | undefined {
  const compressed = field(header, 3);
  const uncompressed = field(header, 2);
  if (!(compressed >= 0 && compressed <= bytesLeft)) {
    return {
      code: 'ingest.parse_error',
      why: `declares ${compressed} bytes, past the end of its column chunk`,
    };
  }
  if (!(uncompressed >= 0)) {
    return { code: 'ingest.parse_error', why: `declares ${uncompressed} bytes uncompressed` };
  }
  if (uncompressed > PARQUET_MAX_PAGE_BYTES) {
    return {
      code: 'ingest.file_too_large',
      why: `expands to ${uncompressed} bytes, over the limit of ${PARQUET_MAX_PAGE_BYTES}`,
    };
  }
  const type = field(header, 1);
  const v2 = type === DATA_PAGE_V2 ? header.get(8) : undefined;
  if (v2 instanceof Map) {
    // hyparquet decodes num_values - num_nulls values, and decompresses past the level bytes it is told of.
    const nulls = field(v2, 2);
    if (!(nulls >= 0 && nulls <= field(v2, 1) && field(v2, 5) >= 0 && field(v2, 6) >= 0)) {
      return { code: 'ingest.parse_error', why: 'declares negative counts or more nulls than values' };
    }
  }
  // A dictionary holds distinct values of its chunk, so no more entries than the chunk has values either.
  const count = type === DICTIONARY_PAGE ? dictionaryEntries(header) : pageValues(header);
  if (!(count >= 0 && count <= valuesLeft)) {
    return {
      code: 'ingest.parse_error',
      why: `declares ${count} values, more than its column chunk has left (${valuesLeft})`,
    };
  }
  return undefined;
}

/** The values a data page declares (0 for other pages). */
function pageValues(header: Struct): number {
  const type = field(header, 1);
  const body = header.get(type === DATA_PAGE ? 5 : type === DATA_PAGE_V2 ? 8 : -1);
  return body instanceof Map ? field(body, 1) : 0;
}

function dictionaryEntries(header: Struct): number {
  const body = header.get(7);
  return body instanceof Map ? field(body, 1) : 0;
}

/** An integer field, NaN when absent or of another type (so every range check fails on it). */
function field(struct: Struct, id: number): number {
  const value = struct.get(id);
  return typeof value === 'number' ? value : Number.NaN;
}

// Thrift compact protocol, enough to read page headers: integers and nested structs kept, the rest skipped.
type Struct = Map<number, number | Struct | undefined>;
interface Reader {
  readonly bytes: Uint8Array;
  offset: number;
}

function readStruct(reader: Reader, depth: number): Struct {
  if (depth > MAX_DEPTH) throw new Error('nested too deep');
  const struct: Struct = new Map();
  let id = 0;
  for (;;) {
    const head = byteAt(reader);
    const type = head & 0x0f;
    if (type === 0) return struct;
    const delta = head >> 4;
    id = delta === 0 ? zigzag(varint(reader)) : id + delta;
    struct.set(id, readValue(reader, type, depth));
  }
}

function readValue(reader: Reader, type: number, depth: number): number | Struct | undefined {
  switch (type) {
    case 1: // boolean true, false: held in the field header
    case 2:
      return undefined;
    case 3:
      reader.offset += 1;
      return undefined;
    case 4: // i16, i32, i64
    case 5:
    case 6:
      return zigzag(varint(reader));
    case 7:
      reader.offset += 8;
      return undefined;
    case 8:
      reader.offset += varint(reader);
      return undefined;
    case 9: // list, set
    case 10:
      skipList(reader, depth);
      return undefined;
    case 11:
      skipMap(reader, depth);
      return undefined;
    case 12:
      return readStruct(reader, depth + 1);
    default:
      throw new Error(`unknown thrift type ${type}`);
  }
}

function skipList(reader: Reader, depth: number): void {
  const head = byteAt(reader);
  const size = head >> 4 === 15 ? varint(reader) : head >> 4;
  for (let i = 0; i < size; i++) skipElement(reader, head & 0x0f, depth);
}

function skipMap(reader: Reader, depth: number): void {
  const size = varint(reader);
  if (size === 0) return;
  const types = byteAt(reader);
  for (let i = 0; i < size; i++) {
    skipElement(reader, types >> 4, depth);
    skipElement(reader, types & 0x0f, depth);
  }
}

/** One element of a list or map: a boolean takes a byte of its own there, so each takes at least one byte. */
function skipElement(reader: Reader, type: number, depth: number): void {
  if (type === 1 || type === 2) reader.offset += 1;
  else readValue(reader, type, depth + 1);
  if (reader.offset > reader.bytes.length) throw new Error('collection past the end');
}

function byteAt(reader: Reader): number {
  const byte = reader.bytes[reader.offset++];
  if (byte === undefined) throw new Error('header past the end');
  return byte;
}

/** An unsigned varint of up to 64 bits; past 2^53 it is inexact, which only ever makes a check fail. */
function varint(reader: Reader): number {
  let value = 0;
  for (let shift = 0; shift < 70; shift += 7) {
    const byte = byteAt(reader);
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value;
  }
  throw new Error('varint too long');
}

function zigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}
