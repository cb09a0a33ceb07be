// The page headers of a column chunk, checked before hyparquet decodes the chunk. hyparquet allocates what a
// header declares (the bytes a page decompresses to, one slot per value), and a header is a few bytes anyone can
// write: a small file could otherwise make a load allocate gigabytes. One header is read per page, and the runs of
// level and index values each page holds (see parquet-runs.ts) and the lengths of its delta-encoded values (see
// parquet-delta.ts) are walked before it is decoded.
import { type ColumnMetaData, type CompressionCodec, type FileMetaData, parquetSchema } from 'hyparquet';
import type { CompressedPages } from './parquet-compressed-pages.ts';
import { deltaProblem, isDeltaEncoded } from './parquet-delta.ts';
import {
  isRunEncoded,
  type PageRuns,
  v1PageProblem,
  v2LevelsProblem,
  v2ValuesProblem,
} from './parquet-runs.ts';
import { field, type Reader, readStruct, type Struct } from './parquet-thrift.ts';
import { type SourceFile, sourceError } from './source-file.ts';

/** Largest page decompressed. Writers cut pages near 1 MiB; a whole column chunk in one page stays well below. */
export const PARQUET_MAX_PAGE_BYTES = 256 * 1024 * 1024;

/**
 * The most each codec's format can expand one stored byte to, so a page declaring more is not what its bytes hold.
 * BROTLI has no such bound short of megabytes per byte: PARQUET_MAX_PAGE_BYTES alone limits it.
 */
const MAX_EXPANSION: Partial<Record<CompressionCodec, number>> = {
  SNAPPY: 22, // a 3-byte copy writes at most 64 bytes
  GZIP: 1032, // deflate: a 258-byte match in as little as 2 bits
  LZ4: 256, // each further byte of a match length adds at most 255
  LZ4_RAW: 256,
  ZSTD: 32_768, // a 4-byte RLE block writes at most 128 KiB
};

/** The fewest bits one PLAIN value of each type is stored in, which bounds the entries of a dictionary page. */
const PLAIN_BITS: Record<string, number> = {
  BOOLEAN: 1,
  INT32: 32,
  FLOAT: 32,
  INT64: 64,
  DOUBLE: 64,
  INT96: 96,
  BYTE_ARRAY: 32, // its 4-byte length
};

const DATA_PAGE = 0;
const DICTIONARY_PAGE = 2;
const DATA_PAGE_V2 = 3;

/** One column chunk of a row group: its bytes in the file and how many values its pages may hold in all. */
export interface ChunkExtent {
  readonly column: string;
  readonly start: number;
  readonly end: number;
  /** A flat column is read until it has the row group's rows, as hyparquet does; a nested one to its end. */
  readonly flat: boolean;
  /** The row group's rows for a flat column, the value count the footer declares for a nested one. */
  readonly maxValues: number;
  readonly codec: CompressionCodec;
  readonly boolean: boolean;
  readonly int32: boolean;
  /** Bits each PLAIN value takes at least (0 when unknown), and the bit widths of the levels (0 for none). */
  readonly plainBits: number;
  readonly repWidth: number;
  readonly defWidth: number;
  readonly maxDef: number;
}

export interface PageProblem {
  readonly code: 'ingest.parse_error' | 'ingest.file_too_large';
  readonly why: string;
}

/**
 * What hyparquet reads a chunk as: flat (top-level, unrepeated primitive, one value per row) or not, and the
 * levels and leaf of its path, as hyparquet finds them (first child of each name). Takes the metadata once.
 */
function chunkShapes(metadata: FileMetaData): (meta: ColumnMetaData) => {
  flat: boolean;
  repWidth: number;
  defWidth: number;
  maxDef: number;
  typeLength: number;
} {
  const tree = parquetSchema(metadata);
  const flat = new Set<string>();
  for (const { element, children } of tree.children) {
    if (children.length === 0 && element.repetition_type !== 'REPEATED') flat.add(element.name);
  }
  return (meta) => {
    let node = tree;
    let maxRep = tree.element.repetition_type === 'REPEATED' ? 1 : 0;
    let maxDef = 0;
    for (const name of meta.path_in_schema) {
      const child = node.children.find((candidate) => candidate.element.name === name);
      if (child === undefined) break; // hyparquet refuses the chunk before reading it
      if (child.element.repetition_type === 'REPEATED') maxRep += 1;
      if (child.element.repetition_type !== 'REQUIRED') maxDef += 1;
      node = child;
    }
    return {
      flat: meta.path_in_schema.length === 1 && flat.has(meta.path_in_schema[0] ?? ''),
      repWidth: 32 - Math.clz32(maxRep),
      defWidth: 32 - Math.clz32(maxDef),
      maxDef,
      typeLength: node.element.type_length ?? 0,
    };
  };
}

/** The byte ranges hyparquet reads the chunks of one row group from (the same arithmetic as its read plan). */
export function chunkExtents(metadata: FileMetaData, groupIndex: number): ChunkExtent[] {
  const group = metadata.row_groups[groupIndex];
  if (group === undefined) return [];
  const shapeOf = chunkShapes(metadata);
  const extents: ChunkExtent[] = [];
  for (const chunk of group.columns) {
    const meta = chunk.meta_data;
    if (meta === undefined) continue;
    // Number each: a footer can write either as i32 or i64, and adding a number to a bigint throws.
    const offset = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const shape = shapeOf(meta);
    extents.push({
      column: meta.path_in_schema.join('.'),
      start: offset,
      end: offset + Number(meta.total_compressed_size),
      flat: shape.flat,
      maxValues: shape.flat ? Number(group.num_rows) : Math.max(Number(meta.num_values), 0),
      codec: meta.codec,
      boolean: meta.type === 'BOOLEAN',
      int32: meta.type === 'INT32',
      plainBits: meta.type === 'FIXED_LEN_BYTE_ARRAY' ? shape.typeLength * 8 : (PLAIN_BITS[meta.type] ?? 0),
      repWidth: shape.repWidth,
      defWidth: shape.defWidth,
      maxDef: shape.maxDef,
    });
  }
  return extents;
}

/** The values the footer declares for nested (list, map or struct) leaves, which are not one per row. */
export function nestedValueCount(metadata: FileMetaData): number {
  const shapeOf = chunkShapes(metadata);
  let values = 0;
  for (const group of metadata.row_groups) {
    for (const { meta_data: meta } of group.columns) {
      if (meta && !shapeOf(meta).flat) values += Math.max(Number(meta.num_values), 0);
    }
  }
  return values;
}

/**
 * Checks the page headers, and the runs, of every chunk of the row group that a slice of the file holds whole;
 * a compressed page's runs are left to `compressed`, walked as hyparquet decompresses it. hyparquet reads each
 * chunk from one slice holding it (the same range arithmetic), so no page is decoded before this.
 */
export function checkPages(
  file: SourceFile,
  groupIndex: number,
  extents: readonly ChunkExtent[],
  bytes: Uint8Array,
  start: number,
  compressed: CompressedPages,
): void {
  for (const extent of extents) {
    if (!(extent.start >= start && extent.end <= start + bytes.length)) continue;
    const where = (page: string) =>
      `row group ${groupIndex + 1}, column ${JSON.stringify(extent.column)}, ${page}`;
    const chunk = bytes.subarray(extent.start - start, extent.end - start);
    const problem = checkChunkPages(chunk, extent, (stored, uncompressed, runs, page) =>
      compressed.expect(stored, uncompressed, { runs, where: where(page) }),
    );
    if (problem !== undefined) throw pageError(file, problem.code, where(problem.why));
  }
}

/** The error for a page refused: `where` gives row group, column and page. */
export function pageError(file: SourceFile, code: PageProblem['code'], where: string): Error {
  return sourceError(
    file,
    code,
    code === 'ingest.parse_error'
      ? `${file.displayPath} is not a readable Parquet file: ${where}`
      : `${file.displayPath} holds a page over the limit the relay reads: ${where}`,
  );
}

type ExpectCompressed = (
  stored: Uint8Array,
  uncompressed: number,
  runs: PageRuns | undefined,
  page: string,
) => void;

/** The first page of the chunk whose header or runs ask for more than the chunk can hold, or undefined. */
function checkChunkPages(
  bytes: Uint8Array,
  extent: ChunkExtent,
  expect: ExpectCompressed,
): PageProblem | undefined {
  const reader: Reader = { bytes, offset: 0 };
  let values = 0;
  let dictionary = false;
  // A flat column ends once it has the row group's values, as hyparquet reads it; a nested one with its chunk.
  for (let page = 1; reader.offset < bytes.length - 1; page++) {
    if (extent.flat && values >= extent.maxValues) break;
    let header: Struct;
    try {
      header = readStruct(reader);
    } catch {
      return { code: 'ingest.parse_error', why: `the header of page ${page} cannot be decoded` };
    }
    dictionary ||= field(header, 1) === DICTIONARY_PAGE;
    // Without a dictionary hyparquet hands over the indices themselves as the column's values.
    if (!dictionary && DICTIONARY_ENCODINGS.has(pageEncoding(header))) {
      return {
        code: 'ingest.parse_error',
        why: `page ${page} is dictionary-encoded, but its column chunk has no dictionary page before it`,
      };
    }
    const problem =
      checkPage(header, extent, bytes.length - reader.offset, extent.maxValues - values) ??
      checkRuns(header, extent, bytes.subarray(reader.offset, reader.offset + field(header, 3)), (s, u, r) =>
        expect(s, u, r, `page ${page}`),
      );
    if (problem !== undefined) return { code: problem.code, why: `page ${page} ${problem.why}` };
    values += pageValues(header);
    reader.offset += field(header, 3);
  }
  return undefined;
}

/** What one page header declares against the bytes left in its chunk and the values left to it. */
function checkPage(
  header: Struct,
  extent: ChunkExtent,
  bytesLeft: number,
  valuesLeft: number,
): PageProblem | undefined {
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
  const expansion = MAX_EXPANSION[extent.codec];
  if (expansion !== undefined && uncompressed > compressed * expansion) {
    return {
      code: 'ingest.parse_error',
      why: `declares it expands to ${uncompressed} bytes, more than ${extent.codec} can make of ${compressed} (${expansion} times as many)`,
    };
  }
  const type = field(header, 1);
  const v2 = type === DATA_PAGE_V2 ? header.get(8) : undefined;
  if (v2 instanceof Map) {
    // hyparquet decodes num_values - num_nulls values, and decompresses past the level bytes it is told of.
    const nulls = field(v2, 2);
    const levels = field(v2, 5) + field(v2, 6);
    if (!(nulls >= 0 && nulls <= field(v2, 1) && field(v2, 5) >= 0 && field(v2, 6) >= 0)) {
      return { code: 'ingest.parse_error', why: 'declares negative counts or more nulls than values' };
    }
    if (!(levels <= compressed && levels <= uncompressed)) {
      return {
        code: 'ingest.parse_error',
        why: `declares ${levels} bytes of levels, more than the page holds`,
      };
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
  if (type === DICTIONARY_PAGE && count * extent.plainBits > uncompressed * 8) {
    return {
      code: 'ingest.parse_error',
      why: `declares ${count} dictionary entries, more than its ${uncompressed} bytes can hold`,
    };
  }
  return undefined;
}

/**
 * Walks the runs (and delta-encoded lengths) of a data page stored as is; a compressed page is handed to `expect`
 * (with the runs to walk, if any, once it is decompressed), as is a compressed dictionary page, so that every page
 * decompressed is known.
 */
function checkRuns(
  header: Struct,
  extent: ChunkExtent,
  stored: Uint8Array,
  expect: (stored: Uint8Array, uncompressed: number, runs: PageRuns | undefined) => void,
): PageProblem | undefined {
  const type = field(header, 1);
  const body = header.get(type === DATA_PAGE ? 5 : type === DATA_PAGE_V2 ? 8 : 7);
  if (!(body instanceof Map)) return undefined; // hyparquet refuses a page without its header
  const compressedCodec = extent.codec !== 'UNCOMPRESSED';
  const uncompressed = field(header, 2);
  if (type === DICTIONARY_PAGE) {
    if (compressedCodec) expect(stored, uncompressed, undefined);
    return undefined;
  }
  const v2 = type === DATA_PAGE_V2;
  const runs: PageRuns = {
    v2,
    values: field(body, 1),
    stored: v2 ? field(body, 1) - field(body, 2) : field(body, 1),
    repWidth: extent.repWidth,
    defWidth: extent.defWidth,
    maxDef: extent.maxDef,
    encoding: field(body, v2 ? 4 : 2),
    boolean: extent.boolean,
    int32: extent.int32,
    repBytes: v2 ? field(body, 6) : 0,
    defBytes: v2 ? field(body, 5) : 0,
  };
  const walked = isRunEncoded(runs.encoding) || isDeltaEncoded(runs) ? runs : undefined;
  if (!v2) {
    if (!compressedCodec) return valuesProblem(v1PageProblem(stored, runs), stored, runs);
    expect(stored, uncompressed, runs.repWidth + runs.defWidth > 0 ? runs : walked);
    return undefined;
  }
  const levels = v2LevelsProblem(stored, runs);
  if (levels !== undefined) return { code: 'ingest.parse_error', why: levels };
  const values = stored.subarray(runs.repBytes + runs.defBytes);
  // hyparquet takes a V2 page as compressed unless it says otherwise (is_compressed, field 7).
  if (compressedCodec && body.get(7) !== false) {
    expect(values, uncompressed - runs.repBytes - runs.defBytes, walked);
    return undefined;
  }
  return valuesProblem(v2ValuesProblem(values, runs), values, runs);
}

/**
 * The problem a page's runs have (`runs`, from v1PageProblem or v2ValuesProblem), or else its delta-encoded values:
 * `page` as hyparquet decodes it (a V1 page whole, a V2 page's values), once decompressed.
 */
export function valuesProblem(
  runs: string | undefined,
  page: Uint8Array,
  how: PageRuns,
): PageProblem | undefined {
  if (runs !== undefined) return { code: 'ingest.parse_error', why: runs };
  return deltaProblem(page, how, PARQUET_MAX_PAGE_BYTES);
}

/** The values a data page declares (0 for other pages). */
function pageValues(header: Struct): number {
  const type = field(header, 1);
  const body = header.get(type === DATA_PAGE ? 5 : type === DATA_PAGE_V2 ? 8 : -1);
  return body instanceof Map ? field(body, 1) : 0;
}

/** PLAIN_DICTIONARY and RLE_DICTIONARY: values given as indices into the chunk's dictionary page. */
const DICTIONARY_ENCODINGS = new Set([2, 8]);

/** The encoding of a data page's values (-1 for other pages). */
function pageEncoding(header: Struct): number {
  const type = field(header, 1);
  const body = header.get(type === DATA_PAGE ? 5 : type === DATA_PAGE_V2 ? 8 : -1);
  return body instanceof Map ? field(body, type === DATA_PAGE ? 2 : 4) : -1;
}

function dictionaryEntries(header: Struct): number {
  const body = header.get(7);
  return body instanceof Map ? field(body, 1) : 0;
}
