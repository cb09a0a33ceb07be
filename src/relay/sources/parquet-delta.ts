// Delta-encoded values, checked before hyparquet decodes them. Their lengths are DELTA_BINARY_PACKED integers, a few
// bytes able to declare any length, and hyparquet builds each DELTA_BYTE_ARRAY value sharing a prefix with the one
// before it in a new array of prefix + suffix bytes, never checking that prefix against that value: a 247-byte file
// declaring prefixes of 2^28 bytes exhausts the heap. A block header declaring miniblocks that hold no values makes
// its INT32 reader loop without end. The integers are read here exactly as hyparquet reads them (same offsets, same
// 32-bit arithmetic, a fractional offset truncated as a DataView does) one at a time, and none is kept.
import type { PageProblem } from './parquet-pages.ts';
import { type PageRuns, v1Values } from './parquet-runs.ts';

const DELTA_BINARY_PACKED = 5;
const DELTA_LENGTH_BYTE_ARRAY = 6;
const DELTA_BYTE_ARRAY = 7;

/** Whether hyparquet reads a page's values (or their lengths) as delta-encoded INT32s, which are checked here. */
export function isDeltaEncoded(runs: Pick<PageRuns, 'encoding' | 'int32'>): boolean {
  return (
    runs.encoding === DELTA_BYTE_ARRAY ||
    runs.encoding === DELTA_LENGTH_BYTE_ARRAY ||
    (runs.encoding === DELTA_BINARY_PACKED && runs.int32)
  );
}

/**
 * The delta-encoded values of a data page (V1: the whole page; V2: what follows the levels, decompressed), or
 * undefined. `maxBytes` bounds the bytes of all DELTA_BYTE_ARRAY values, which can repeat far more than the page holds.
 */
export function deltaProblem(page: Uint8Array, runs: PageRuns, maxBytes: number): PageProblem | undefined {
  if (!isDeltaEncoded(runs)) return undefined;
  const values = runs.v2 ? { start: 0, count: runs.stored } : v1Values(page, runs);
  if (values === undefined) return undefined;
  try {
    const { start, count } = values;
    if (runs.encoding === DELTA_BYTE_ARRAY) return byteArrayProblem(page, start, count, maxBytes);
    if (runs.encoding === DELTA_LENGTH_BYTE_ARRAY) return lengthsProblem(page, start, count);
    deltaInts(page, start, count).next(); // its header, which is all that can make it spin
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    // Bytes running out are left to hyparquet, which throws there before it decodes a value.
    return error.why === undefined ? undefined : { code: 'ingest.parse_error', why: error.why };
  }
}

/** Ends a walk: at an unreadable block header (with why), or where hyparquet reads past its page. */
class Stop {
  readonly why: string | undefined;
  constructor(why?: string) {
    this.why = why;
  }
}

function parseError(why: string): PageProblem {
  return { code: 'ingest.parse_error', why };
}

/**
 * DELTA_BYTE_ARRAY: prefix lengths, then suffix lengths from where hyparquet leaves off reading the prefixes, then
 * the suffixes' bytes. The prefixes are read twice (once to find where the suffix lengths start) to keep nothing.
 */
function byteArrayProblem(
  page: Uint8Array,
  start: number,
  count: number,
  maxBytes: number,
): PageProblem | undefined {
  const skipped = deltaInts(page, start, count);
  let step = skipped.next();
  while (!step.done) step = skipped.next();
  const prefixes = deltaInts(page, start, count);
  const suffixes = deltaInts(page, step.value, count);
  let previous = 0;
  let total = 0;
  let stored = 0;
  for (let i = 1; i <= count; i++) {
    const prefix = prefixes.next().value;
    const suffix = suffixes.next().value;
    if (prefix < 0 || suffix < 0) {
      return parseError(
        `declares value ${i} of a negative length (prefix ${prefix}, suffix ${suffix} bytes)`,
      );
    }
    if (prefix > previous) {
      return parseError(
        `declares that value ${i} repeats ${prefix} bytes of the one before it, which has ${previous}`,
      );
    }
    previous = prefix + suffix;
    total += previous;
    stored += suffix;
    if (total > maxBytes) {
      return {
        code: 'ingest.file_too_large',
        why: `holds values of more than ${maxBytes} bytes in all, over the limit of ${maxBytes}`,
      };
    }
  }
  return bytesProblem(page, suffixes, stored);
}

/** DELTA_LENGTH_BYTE_ARRAY: the lengths, then the values' bytes. */
function lengthsProblem(page: Uint8Array, start: number, count: number): PageProblem | undefined {
  const lengths = deltaInts(page, start, count);
  let stored = 0;
  for (let i = 1; i <= count; i++) {
    const length = lengths.next().value;
    if (length < 0) return parseError(`declares value ${i} of a negative length (${length} bytes)`);
    stored += length;
  }
  return bytesProblem(page, lengths, stored);
}

/** The bytes the lengths declare, from where hyparquet leaves off reading them (which ends `lengths`). */
function bytesProblem(
  page: Uint8Array,
  lengths: Generator<number, number>,
  stored: number,
): PageProblem | undefined {
  const end = lengths.next().value; // all `count` read, so the offset it returns
  const left = page.length - (Math.trunc(end) || 0);
  return stored > left
    ? parseError(
        `declares ${stored} bytes of values, more than the ${left} its page holds after their lengths`,
      )
    : undefined;
}

/**
 * hyparquet's DELTA_BINARY_PACKED INT32 reader: yields the `count` values (none for 0), returns the offset it leaves
 * its reader at (after the miniblock of the last value; after the header for a count of 0 or 1).
 */
function* deltaInts(bytes: Uint8Array, start: number, count: number): Generator<number, number> {
  const cursor = { offset: start };
  const blockSize = varint(bytes, cursor);
  const miniblocks = varint(bytes, cursor);
  varint(bytes, cursor); // the value count, which hyparquet does not use
  let value = zigzag(varint(bytes, cursor));
  const perMiniblock = blockSize / miniblocks;
  // No value ever comes of such blocks: hyparquet reads block headers until it passes the page, or for ever.
  if (count > 1 && !(miniblocks > 0 && perMiniblock > 0)) {
    throw new Stop(
      `declares delta blocks of ${blockSize} values in ${miniblocks} miniblocks, which hold none`,
    );
  }
  if (count > 0) yield value;
  let read = 1;
  while (read < count) {
    const minDelta = zigzag33(bytes, cursor);
    const widths = cursor.offset;
    let offset = widths + miniblocks;
    for (let i = 0; i < miniblocks && read < count; i++) {
      const width = byteAt(bytes, widths + i);
      const end = offset + (perMiniblock * width) / 8;
      let bit = 0;
      for (let j = 0; j < perMiniblock && read < count; j++) {
        let residual = 0;
        for (let bits = 0; bits < width; ) {
          const take = Math.min(8 - bit, width - bits);
          // Bits past the 32nd vanish modulo 2^32.
          if (bits < 32) residual |= ((byteAt(bytes, offset) >>> bit) & ((1 << take) - 1)) << bits;
          bits += take;
          bit += take;
          if (bit === 8) {
            bit = 0;
            offset++;
          }
        }
        value = (value + minDelta + residual) | 0;
        read++;
        yield value;
      }
      offset = end; // the whole miniblock, padding included
    }
    cursor.offset = offset;
  }
  return cursor.offset;
}

/** A byte as DataView.getUint8 reads it: the offset truncated (NaN as 0), past either end a Stop. */
function byteAt(bytes: Uint8Array, offset: number): number {
  const byte = bytes[Math.trunc(offset) || 0];
  if (byte === undefined) throw new Stop();
  return byte;
}

/** hyparquet's varint: 32-bit, bits past the 32nd wrapping round. */
function varint(bytes: Uint8Array, cursor: { offset: number }): number {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = byteAt(bytes, cursor.offset++);
    value |= (byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
}

function zigzag(value: number): number {
  return (value >>> 1) ^ -(value & 1);
}

/** A zigzag varint modulo 2^32, keeping the 33rd bit a 5-byte varint carries, as hyparquet reads a block's minimum. */
function zigzag33(bytes: Uint8Array, cursor: { offset: number }): number {
  const start = cursor.offset;
  const low = varint(bytes, cursor);
  const high = cursor.offset - start === 5 ? (byteAt(bytes, start + 4) >>> 4) & 1 : 0;
  return ((low >>> 1) | (high << 31)) ^ -(low & 1);
}
