// Parquet files written by hand for the reader's tests, so that they can say what no writer would: thrift compact
// structs, level and index runs, and a file of one leaf column whose pages are given as bytes.
import { gzipSync } from 'node:zlib';

type Value = number | bigint | string | boolean | Field[] | Value[];
/** A thrift field: id, compact type (1 boolean, 5 i32, 6 i64, 8 binary, 9 list, 12 struct), value. */
export type Field = readonly [
  id: number,
  type: 1 | 5 | 6 | 8 | 9 | 12,
  value: Value,
  elementType?: 5 | 8 | 12,
];

export function varint(value: bigint, out: number[]): void {
  let rest = value;
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    out.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
}

function element(type: number, value: Value, out: number[], elementType?: number): void {
  if (type === 5 || type === 6) {
    const n = BigInt(value as number | bigint);
    varint(n >= 0n ? n << 1n : (-n << 1n) - 1n, out);
  } else if (type === 8) {
    const bytes = Buffer.from(value as string);
    varint(BigInt(bytes.length), out);
    out.push(...bytes);
  } else if (type === 12) struct(value as Field[], out);
  else {
    const items = value as Value[];
    out.push((Math.min(items.length, 15) << 4) | (elementType as number));
    if (items.length >= 15) varint(BigInt(items.length), out);
    for (const item of items) element(elementType as number, item, out);
  }
}

/** Thrift compact protocol, as Parquet footers and page headers are written (a boolean in its field header). */
export function struct(fields: readonly Field[], out: number[] = []): number[] {
  let last = 0;
  for (const [id, type, value, elementType] of fields) {
    const compact = type === 1 ? (value ? 1 : 2) : type;
    out.push(((id - last) << 4) | compact);
    last = id;
    if (type !== 1) element(type, value, out, elementType);
  }
  out.push(0);
  return out;
}

/** An RLE run: `count` copies of `value`, stored in the bytes `width` bits take. */
export function rleRun(count: number | bigint, value: number, width: number): number[] {
  const out: number[] = [];
  varint(BigInt(count) << 1n, out);
  for (let i = 0; i < (width + 7) >> 3; i++) out.push((value >> (8 * i)) & 0xff);
  return out;
}

/** A bit-packed run of `values` (padded to a multiple of 8), least significant bit first. */
export function bitPackedRun(values: readonly number[], width: number): number[] {
  const groups = Math.ceil(values.length / 8);
  const out: number[] = [];
  varint(BigInt((groups << 1) | 1), out);
  return [...out, ...packed(values, groups * 8, width)];
}

/** `slots` values of `width` bits (those past `values` 0), least significant bit first. */
function packed(values: readonly number[], slots: number, width: number): number[] {
  const bytes = new Array<number>((slots * width) / 8).fill(0);
  values.forEach((value, i) => {
    for (let bit = 0; bit < width; bit++) {
      const at = i * width + bit;
      bytes[at >> 3] = (bytes[at >> 3] as number) | (((value >> bit) & 1) << (at & 7));
    }
  });
  return bytes;
}

function zigzagVarint(value: number, out: number[]): void {
  const n = BigInt(value);
  varint(n >= 0n ? n << 1n : (-n << 1n) - 1n, out);
}

/**
 * DELTA_BINARY_PACKED integers as writers store them: blocks of 128 in 4 miniblocks of 32, a miniblock left unused
 * at the end of the last block declaring width 0 and holding no bytes.
 */
export function deltaInts(values: readonly number[]): number[] {
  const out: number[] = [];
  varint(128n, out);
  varint(4n, out);
  varint(BigInt(values.length), out);
  zigzagVarint(values[0] ?? 0, out);
  for (let start = 1; start < values.length; start += 128) {
    const deltas = values
      .slice(start, start + 128)
      .map((value, i) => value - (values[start + i - 1] as number));
    const min = Math.min(...deltas);
    zigzagVarint(min, out);
    const miniblocks = [0, 32, 64, 96].map((at) => deltas.slice(at, at + 32).map((delta) => delta - min));
    const widths = miniblocks.map((rest) => (rest.length === 0 ? 0 : 32 - Math.clz32(Math.max(...rest))));
    out.push(...widths);
    miniblocks.forEach((rest, i) => {
      if (rest.length > 0) out.push(...packed(rest, 32, widths[i] as number));
    });
  }
  return out;
}

/** Strings as DELTA_BYTE_ARRAY stores them: the bytes each shares with the one before it, then the rest of each. */
export function deltaByteArray(strings: readonly string[]): Buffer {
  const values = strings.map((text) => Buffer.from(text));
  const prefixes = values.map((value, i) => {
    const before = values[i - 1] ?? Buffer.alloc(0);
    let shared = 0;
    while (shared < value.length && shared < before.length && value[shared] === before[shared]) shared++;
    return shared;
  });
  const suffixes = values.map((value, i) => value.subarray(prefixes[i]));
  return Buffer.concat([
    Buffer.from(deltaInts(prefixes)),
    Buffer.from(deltaInts(suffixes.map((suffix) => suffix.length))),
    ...suffixes,
  ]);
}

/** Runs after their 4-byte length, as V1 pages store levels. */
export function prefixed(runs: readonly number[]): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32LE(runs.length);
  return Buffer.concat([length, Buffer.from(runs)]);
}

export const int32s = (values: readonly number[]) => Buffer.from(Int32Array.from(values).buffer);

export const Encoding = {
  PLAIN: 0,
  RLE: 3,
  DELTA_BINARY_PACKED: 5,
  DELTA_LENGTH_BYTE_ARRAY: 6,
  DELTA_BYTE_ARRAY: 7,
  RLE_DICTIONARY: 8,
} as const;
export const Codec = { UNCOMPRESSED: 0, GZIP: 2, ZSTD: 6 } as const;

/** A Zstandard frame of raw (stored) blocks declaring its size: valid input for any decoder, no compressor needed. */
export function zstdStored(body: Uint8Array): Buffer {
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 0]);
  header.writeUInt32LE(body.length, 5);
  const blocks: Uint8Array[] = [header];
  let offset = 0;
  do {
    const size = Math.min(body.length - offset, 128 * 1024);
    const last = offset + size >= body.length ? 1 : 0;
    blocks.push(Buffer.from([((size << 3) | last) & 0xff, (size >> 5) & 0xff, (size >> 13) & 0xff]));
    blocks.push(body.subarray(offset, offset + size));
    offset += size;
  } while (offset < body.length);
  return Buffer.concat(blocks);
}

export interface Page {
  /** The page header fields after type and sizes: `[[5, 12, ...]]` for a V1 data page, and so on. */
  readonly type: 0 | 2 | 3;
  readonly fields: readonly Field[];
  /** The page as decompressed. V2 pages store `levels` before it, never compressed. */
  readonly body: Buffer;
  readonly levels?: Buffer;
  /** The values it declares (0 for a dictionary page). */
  readonly values: number;
  /** The size the header declares it expands to, when not its own. */
  readonly uncompressedSize?: number;
  /** The bytes stored for `body` when its column is compressed, when not what the codec makes of it. */
  readonly stored?: Buffer;
}

export function dataPageV1(values: number, encoding: number, body: Buffer, uncompressedSize?: number): Page {
  const header: Field[] = [
    [1, 5, values],
    [2, 5, encoding],
    [3, 5, Encoding.RLE],
    [4, 5, Encoding.RLE],
  ];
  return {
    type: 0,
    fields: [[5, 12, header]],
    body,
    values,
    ...(uncompressedSize ? { uncompressedSize } : {}),
  };
}

export function dictionaryPage(entries: number, body: Buffer): Page {
  const header: Field[] = [
    [1, 5, entries],
    [2, 5, Encoding.PLAIN],
  ];
  return { type: 2, fields: [[7, 12, header]], body, values: 0 };
}

export function dataPageV2(
  /** `definitionBytes` is the length of the definition levels the header declares, when not theirs. */
  counts: { values: number; nulls: number; rows: number; encoding: number; definitionBytes?: number },
  levels: { repetition: Buffer; definition: Buffer },
  body: Buffer,
): Page {
  const header: Field[] = [
    [1, 5, counts.values],
    [2, 5, counts.nulls],
    [3, 5, counts.rows],
    [4, 5, counts.encoding],
    [5, 5, counts.definitionBytes ?? levels.definition.length],
    [6, 5, levels.repetition.length],
  ];
  return {
    type: 3,
    fields: [[8, 12, header]],
    body,
    levels: Buffer.concat([levels.repetition, levels.definition]),
    values: counts.values,
  };
}

export interface Leaf {
  readonly name: string;
  /** Physical type (0 BOOLEAN, 1 INT32, 6 BYTE_ARRAY) and repetition (0 REQUIRED, 1 OPTIONAL, 2 REPEATED). */
  readonly type: 0 | 1 | 6;
  readonly repetition: 0 | 1 | 2;
  readonly codec: number;
  readonly pages: readonly Page[];
}

function compress(codec: number, body: Buffer): Buffer {
  if (codec === Codec.GZIP) return gzipSync(body);
  return codec === Codec.ZSTD ? zstdStored(body) : body;
}

/** A file of one row group of `rows` rows, one column chunk per leaf, each a top-level column. */
export function leafFile(rows: number, leaves: readonly Leaf[]): Buffer {
  const parts: Buffer[] = [Buffer.from('PAR1')];
  let offset = 4;
  const chunks: Field[][] = [];
  for (const leaf of leaves) {
    const start = offset;
    let dictionaryOffset: number | undefined;
    let dataOffset: number | undefined;
    let values = 0;
    for (const page of leaf.pages) {
      const stored = page.stored ?? compress(leaf.codec, page.body);
      const levels = page.levels ?? Buffer.alloc(0);
      const header = struct([
        [1, 5, page.type],
        [2, 5, page.uncompressedSize ?? levels.length + page.body.length],
        [3, 5, levels.length + stored.length],
        ...page.fields,
      ]);
      if (page.type === 2) dictionaryOffset ??= offset;
      else dataOffset ??= offset;
      values += page.values;
      const bytes = Buffer.concat([Buffer.from(header), levels, stored]);
      parts.push(bytes);
      offset += bytes.length;
    }
    const meta: Field[] = [
      [1, 5, leaf.type],
      [2, 9, [0, 3], 5],
      [3, 9, [leaf.name], 8],
      [4, 5, leaf.codec],
      [5, 6, values],
      [6, 6, offset - start],
      [7, 6, offset - start],
      [9, 6, dataOffset ?? start],
      ...(dictionaryOffset === undefined ? [] : ([[11, 6, dictionaryOffset]] as Field[])),
    ];
    chunks.push([
      [2, 6, start],
      [3, 12, meta],
    ]);
  }
  const schema: Field[][] = [
    [
      [4, 8, 'schema'],
      [5, 5, leaves.length],
    ],
    ...leaves.map((leaf): Field[] => [
      [1, 5, leaf.type],
      [3, 5, leaf.repetition],
      [4, 8, leaf.name],
    ]),
  ];
  return withFooter(parts, schema, rows, chunks);
}

/**
 * The file `parts` (from its leading `PAR1`) make, with the footer naming `schema` and one row group of `rows` rows
 * holding the column `chunks`, its length and the trailing `PAR1`.
 */
export function withFooter(
  parts: readonly Buffer[],
  schema: readonly Field[][],
  rows: number,
  chunks: readonly Field[][],
): Buffer {
  const size = parts.reduce((sum, part) => sum + part.length, 0);
  const footer = Buffer.from(
    struct([
      [1, 5, 1],
      [2, 9, schema as Field[][], 12],
      [3, 6, rows],
      [
        4,
        9,
        [
          [
            [1, 9, chunks as Field[][], 12],
            [2, 6, size - 4],
            [3, 6, rows],
          ],
        ],
        12,
      ],
    ]),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(footer.length);
  return Buffer.concat([...parts, footer, length, Buffer.from('PAR1')]);
}
