// The run-length / bit-packed runs of a data page, checked before hyparquet decodes it. Each run is a header of a
// few bytes declaring how many values it holds, and hyparquet writes a run out in full, past the values its page
// declares (into an array that grows): a 113-byte file declaring a run of 2^31 levels exhausts the heap. The walk
// here reads the bytes exactly as hyparquet does (same offsets, same 32-bit arithmetic) and writes nothing.

/** How hyparquet reads one data page, from its header and its column's schema. */
export interface PageRuns {
  readonly v2: boolean;
  /** The page's num_values: one repetition and one definition level each. */
  readonly values: number;
  /** Values actually stored: num_values - num_nulls for V2; for V1 num_values, which bounds it. */
  readonly stored: number;
  /** Bit widths of the levels, 0 for none (the column's maximum repetition and definition levels). */
  readonly repWidth: number;
  readonly defWidth: number;
  /** The column's maximum definition level: a value is stored for each level equal to it. */
  readonly maxDef: number;
  /** Page encoding (the Parquet enum) and whether the column is BOOLEAN, which decide how values are read. */
  readonly encoding: number;
  readonly boolean: boolean;
  /** Whether the column is INT32, which hyparquet reads delta-encoded values of differently from INT64. */
  readonly int32: boolean;
  /** V2 only: the byte lengths of the levels, stored before the (possibly compressed) values. */
  readonly repBytes: number;
  readonly defBytes: number;
}

const PLAIN_DICTIONARY = 2;
const RLE = 3;
const RLE_DICTIONARY = 8;

interface Cursor {
  readonly bytes: Uint8Array;
  offset: number;
}

/** Where a run would overrun its page, or undefined. Bytes running out is left to hyparquet, which stops there. */
export function v1PageProblem(page: Uint8Array, runs: PageRuns): string | undefined {
  const cursor: Cursor = { bytes: page, offset: 0 };
  for (const [width, what] of [
    [runs.repWidth, 'repetition levels'],
    [runs.defWidth, 'definition levels'],
  ] as const) {
    if (width === 0) continue;
    const problem = prefixedRuns(cursor, width, runs.values, what);
    if (problem !== undefined || cursor.offset > page.length) return problem;
  }
  if (!isRunEncoded(runs.encoding)) return undefined;
  if (runs.boolean) return prefixedRuns(cursor, 1, runs.stored, 'values');
  const width = page[cursor.offset];
  cursor.offset += 1;
  // hyparquet reads no run at bit width 0 in a V1 page: every index is 0.
  return width ? runsProblem(cursor, width, runs.stored, 'dictionary indices') : undefined;
}

/** The levels of a V2 page, which are never compressed: `raw` is the page as stored. */
export function v2LevelsProblem(raw: Uint8Array, runs: PageRuns): string | undefined {
  if (runs.repWidth > 0) {
    const problem = runsProblem({ bytes: raw, offset: 0 }, runs.repWidth, runs.values, 'repetition levels');
    if (problem !== undefined) return problem;
  }
  if (runs.defWidth === 0) return undefined;
  return runsProblem({ bytes: raw, offset: runs.repBytes }, runs.defWidth, runs.values, 'definition levels');
}

/** The values of a V2 page, once decompressed: what follows its levels. */
export function v2ValuesProblem(values: Uint8Array, runs: PageRuns): string | undefined {
  const cursor: Cursor = { bytes: values, offset: 0 };
  if (runs.encoding === RLE) return prefixedRuns(cursor, 1, runs.stored, 'values');
  if (runs.encoding !== PLAIN_DICTIONARY && runs.encoding !== RLE_DICTIONARY) return undefined;
  const width = values[0];
  if (width === undefined) return undefined;
  cursor.offset = 1;
  // Unlike V1, hyparquet reads runs at bit width 0 here, where neither kind of run consumes any value bytes.
  return runsProblem(cursor, width, runs.stored, 'dictionary indices');
}

/** Whether a page's values are read as runs (and so may need a check after decompression). */
export function isRunEncoded(encoding: number): boolean {
  return encoding === RLE || encoding === PLAIN_DICTIONARY || encoding === RLE_DICTIONARY;
}

/**
 * Where the values of a V1 page start, and how many hyparquet reads there: as many as its definition levels equal
 * to the maximum (num_values when there are none), counted as it decodes them. Undefined where hyparquet fails on
 * the levels first. Call once v1PageProblem found no run overrunning its page.
 */
export function v1Values(page: Uint8Array, runs: PageRuns): { start: number; count: number } | undefined {
  let start = 0;
  let count = runs.values;
  if (runs.repWidth > 0) start = 4 + declaredLength(page, start);
  if (runs.defWidth > 0) {
    const defined = definedLevels(page, start + 4, runs);
    if (defined === undefined) return undefined;
    count = defined;
    start += 4 + declaredLength(page, start);
  }
  return start <= page.length ? { start, count } : undefined;
}

/** The 4-byte length at `offset` (NaN past the end, which makes every comparison with it fail). */
function declaredLength(page: Uint8Array, offset: number): number {
  if (offset + 4 > page.length) return Number.NaN;
  return Buffer.from(page.buffer, page.byteOffset + offset, 4).readUInt32LE(0);
}

/** The definition levels equal to the maximum, decoded as hyparquet does (a run past the page is counted whole). */
function definedLevels(page: Uint8Array, from: number, runs: PageRuns): number | undefined {
  const width = runs.defWidth;
  const mask = (1 << width) - 1;
  let offset = from;
  let seen = 0;
  let defined = 0;
  while (seen < runs.values) {
    const header = varint32(page, offset);
    if (header === undefined) return undefined;
    offset = header.end;
    if (header.value & 1) {
      let count = (header.value >> 1) << 3;
      if (count < 0 || offset >= page.length) return undefined;
      // The bit-packed reader's own arithmetic: a 32-bit window of bytes, `right` bits of it already taken.
      let data = page[offset++] as number;
      let left = 8;
      let right = 0;
      while (count) {
        if (right > 8) {
          right -= 8;
          left -= 8;
          data >>>= 8;
        } else if (left - right < width) {
          const byte = page[offset++];
          if (byte === undefined) return undefined;
          data |= byte << left;
          left += 8;
        } else {
          if (seen < runs.values) {
            if (((data >> right) & mask) === runs.maxDef) defined++;
            seen++;
          }
          count--;
          right += width;
        }
      }
    } else {
      const count = header.value >>> 1;
      let value = 0;
      for (let i = 0; i < (width + 7) >> 3; i++) {
        const byte = page[offset++];
        if (byte === undefined) return undefined;
        value |= byte << (i << 3);
      }
      if (value === runs.maxDef) defined += count;
      seen += count;
    }
  }
  return defined;
}

/** Runs after a 4-byte length; the cursor moves to the end that length gives, as hyparquet's does. */
function prefixedRuns(cursor: Cursor, width: number, count: number, what: string): string | undefined {
  const { bytes, offset } = cursor;
  if (offset + 4 > bytes.length) {
    cursor.offset = bytes.length + 1;
    return undefined;
  }
  const length = (bytes[offset] as number) + (bytes[offset + 1] as number) * 2 ** 8;
  const high = (bytes[offset + 2] as number) * 2 ** 16 + (bytes[offset + 3] as number) * 2 ** 24;
  const problem = runsProblem({ bytes, offset: offset + 4 }, width, count, what);
  cursor.offset = offset + 4 + length + high;
  return problem;
}

/**
 * Walks the runs of `count` values from the cursor. An RLE run holds `header >>> 1` values, a bit-packed run
 * `(header >> 1) << 3` (whose last group of 8 may be padding); either holding more than are left is refused.
 */
function runsProblem(cursor: Cursor, width: number, count: number, what: string): string | undefined {
  const { bytes } = cursor;
  let offset = cursor.offset;
  let seen = 0;
  while (seen < count) {
    const header = varint32(bytes, offset);
    if (header === undefined) return undefined;
    offset = header.end;
    const left = count - seen;
    if (header.value & 1) {
      const values = (header.value >> 1) << 3;
      if (values < 0 || values > left + 7) return overrun('bit-packed', values, left, what);
      // hyparquet reads the first byte even of an empty run, then as many as the values' bits take.
      offset += Math.max(1, Math.ceil((values * width) / 8));
      seen += Math.min(values, left);
    } else {
      const values = header.value >>> 1;
      if (values > left) return overrun('RLE', values, left, what);
      offset += (width + 7) >> 3;
      seen += values;
    }
    if (offset > bytes.length) return undefined;
  }
  return undefined;
}

function overrun(kind: string, values: number, left: number, what: string): string {
  return `holds ${kind === 'RLE' ? 'an' : 'a'} ${kind} run of ${values} ${what}, more than the ${left} its page has left`;
}

/** hyparquet's varint: 32-bit, bits past the 32nd wrapping round. Undefined when the bytes end first. */
function varint32(bytes: Uint8Array, start: number): { value: number; end: number } | undefined {
  let value = 0;
  let shift = 0;
  for (let offset = start; offset < bytes.length; offset++) {
    const byte = bytes[offset] as number;
    value |= (byte & 0x7f) << shift;
    if (!(byte & 0x80)) return { value, end: offset + 1 };
    shift += 7;
  }
  return undefined;
}
