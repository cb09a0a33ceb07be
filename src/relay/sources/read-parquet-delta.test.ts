// Delta-encoded Parquet values: their lengths are DELTA_BINARY_PACKED integers, a few bytes able to declare any
// length, and a DELTA_BYTE_ARRAY value repeats a prefix of the one before it, copied into a new array. Pages a
// writer made, and hand-made V1 pages with nulls, must read back exactly; lengths declaring more than their page or
// the value before them, and block headers whose miniblocks hold no values, must fail the load before decoding.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import {
  bitPackedRun,
  Codec,
  dataPageV1,
  dataPageV2,
  deltaByteArray,
  deltaInts,
  Encoding,
  type Leaf,
  leafFile,
  type Page,
  prefixed,
  rleRun,
} from './parquet-hand-made-test-support.ts';
import { useParquetLoads } from './parquet-load-test-support.ts';
import { sourceErrorOf } from './source-test-support.ts';

const parquet = useParquetLoads('ambit-parquet-delta-');
const load = parquet.load;
/** What loading each file came to in a process of its own with a small heap (see useParquetLoads). */
const outcomesApart = async (files: Record<string, Buffer>) => (await parquet.apart(files)).outcomes;

const ROWS = 300;
/** Names sharing long prefixes, with every fifth missing. */
const NAMES = Array.from({ length: ROWS }, (_, i) => (i % 5 === 2 ? null : `site/${i % 7}/building-${i}`));
const PRESENT = NAMES.filter((name) => name !== null);
const DEFINED = NAMES.map((name) => (name === null ? 0 : 1));

/** A page of a column holding nothing but `body`, the values of `count` rows (a V2 page, as most writers write). */
function only(count: number, encoding: number, body: Buffer): Page {
  const none = { repetition: Buffer.alloc(0), definition: Buffer.alloc(0) };
  return dataPageV2({ values: count, nulls: 0, rows: count, encoding }, none, body);
}

function column(page: Page, type: Leaf['type'] = 6, codec: number = Codec.UNCOMPRESSED): Leaf {
  return { name: 'name', type, repetition: 0, codec, pages: [page] };
}

describe('readParquet delta-encoded values', () => {
  for (const codec of ['UNCOMPRESSED', 'GZIP'] as const) {
    it(`reads delta-encoded columns a writer made back exactly, ${codec}`, async () => {
      const ids = NAMES.map((_, i) => 1000 - i * 7);
      const bytes = parquetWriteBuffer({
        columnData: [
          { name: 'name', data: NAMES, type: 'STRING', encoding: 'DELTA_BYTE_ARRAY' },
          { name: 'note', data: NAMES, type: 'STRING', encoding: 'DELTA_LENGTH_BYTE_ARRAY' },
          { name: 'id', data: ids, type: 'INT32', encoding: 'DELTA_BINARY_PACKED' },
        ],
        codec,
        compressors: { GZIP: (input) => gzipSync(input) },
        pageSize: 2000,
      });
      const rows = await load(`writer-${codec}.parquet`, new Uint8Array(bytes));
      assert.deepEqual(
        rows,
        NAMES.map((name, i) => [name, name, ids[i]]),
      );
    });
  }

  for (const [label, codec] of [
    ['stored as is', Codec.UNCOMPRESSED],
    ['gzipped', Codec.GZIP],
  ] as const) {
    it(`reads a V1 page with nulls back exactly, its values counted from its levels, ${label}`, async () => {
      // hyparquet reads as many lengths as there are values, not rows: where the prefix lengths end decides
      // where the suffix lengths are read from.
      const levels = prefixed([
        ...bitPackedRun(DEFINED.slice(0, 24), 1),
        ...rleRun(0, 0, 1),
        ...runsOf(DEFINED, 24),
      ]);
      const body = Buffer.concat([levels, deltaByteArray(PRESENT as string[])]);
      const leaf: Leaf = {
        name: 'name',
        type: 6,
        repetition: 1,
        codec,
        pages: [dataPageV1(ROWS, Encoding.DELTA_BYTE_ARRAY, body)],
      };
      const rows = await load(`v1-${codec}.parquet`, leafFile(ROWS, [leaf]));
      assert.deepEqual(
        rows,
        NAMES.map((name) => [name]),
      );
    });
  }

  it('refuses prefixes longer than the value before them, before allocating them', async () => {
    const prefixes = [0, 2 ** 28, 2 ** 28, 2 ** 28, 2 ** 28, 2 ** 28];
    const body = (values: number[]) =>
      Buffer.concat([
        Buffer.from(deltaInts(values)),
        Buffer.from(deltaInts([1, 0, 0, 0, 0, 0])),
        Buffer.from('A'),
      ]);
    const levels = prefixed(rleRun(6, 1, 1));
    const optional = (page: Page): Leaf => ({
      name: 'name',
      type: 6,
      repetition: 1,
      codec: Codec.GZIP,
      pages: [page],
    });
    const outcomes = await outcomesApart({
      // Under 250 bytes, which hyparquet would have build six values of 256 MiB from.
      'prefixes.parquet': leafFile(6, [column(only(6, Encoding.DELTA_BYTE_ARRAY, body(prefixes)))]),
      'v1-prefixes.parquet': leafFile(6, [
        optional(dataPageV1(6, Encoding.DELTA_BYTE_ARRAY, Buffer.concat([levels, body(prefixes)]))),
      ]),
    });
    const refused =
      /^ingest\.parse_error: .* row group 1, column "name", page 1 declares that value 2 repeats 268435456 bytes of the one before it, which has 1$/;
    assert.match(outcomes['prefixes.parquet'] ?? '', refused);
    assert.match(outcomes['v1-prefixes.parquet'] ?? '', refused);
  });

  it('refuses values that repeat their way past the page limit, before decoding them', async () => {
    // One value of 1 MiB, then 300 repeating it whole: 301 MiB from a page gzipped to a few kilobytes.
    const count = 301;
    const body = Buffer.concat([
      Buffer.from(deltaInts([0, ...new Array<number>(count - 1).fill(2 ** 20)])),
      Buffer.from(deltaInts([2 ** 20, ...new Array<number>(count - 1).fill(0)])),
      Buffer.alloc(2 ** 20, 'a'),
    ]);
    const outcomes = await outcomesApart({
      'repeats.parquet': leafFile(count, [
        column(only(count, Encoding.DELTA_BYTE_ARRAY, body), 6, Codec.GZIP),
      ]),
    });
    assert.match(
      outcomes['repeats.parquet'] ?? '',
      /^ingest\.file_too_large: .* holds a page over the limit the relay reads: row group 1, column "name", page 1 holds values of more than 268435456 bytes in all, over the limit of 268435456$/,
    );
  });

  it('refuses block headers whose miniblocks hold no values, on which hyparquet would spin', async () => {
    // Block size 128 in -1 miniblocks: hyparquet's reader would read the same block header for ever.
    const spin = Buffer.from([0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x03, 0x00, 0x00, 0, 0, 0, 0]);
    const outcomes = await outcomesApart({
      'spin-prefixes.parquet': leafFile(3, [column(only(3, Encoding.DELTA_BYTE_ARRAY, spin))]),
      'spin-lengths.parquet': leafFile(3, [column(only(3, Encoding.DELTA_LENGTH_BYTE_ARRAY, spin))]),
      'spin-int32.parquet': leafFile(3, [column(only(3, Encoding.DELTA_BINARY_PACKED, spin), 1)]),
    });
    for (const name of ['spin-prefixes.parquet', 'spin-lengths.parquet', 'spin-int32.parquet']) {
      assert.match(
        outcomes[name] ?? '',
        /^ingest\.parse_error: .* page 1 declares delta blocks of 128 values in -1 miniblocks, which hold none$/,
      );
    }
  });

  it('refuses a first value repeating bytes of none before it', async () => {
    const body = Buffer.concat([
      Buffer.from(deltaInts([3, 0])),
      Buffer.from(deltaInts([1, 1])),
      Buffer.from('ab'),
    ]);
    const error = await sourceErrorOf(() =>
      load('first.parquet', leafFile(2, [column(only(2, Encoding.DELTA_BYTE_ARRAY, body))])),
    );
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(
      error.message,
      /page 1 declares that value 1 repeats 3 bytes of the one before it, which has 0$/,
    );
  });

  it('refuses negative lengths', async () => {
    const suffixes = Buffer.concat([
      Buffer.from(deltaInts([0, 0])),
      Buffer.from(deltaInts([1, -1])),
      Buffer.from('a'),
    ]);
    const lengths = Buffer.concat([Buffer.from(deltaInts([1, -2])), Buffer.from('a')]);
    const suffixError = await sourceErrorOf(() =>
      load('negative-suffix.parquet', leafFile(2, [column(only(2, Encoding.DELTA_BYTE_ARRAY, suffixes))])),
    );
    assert.equal(suffixError.code, 'ingest.parse_error');
    assert.match(
      suffixError.message,
      /page 1 declares value 2 of a negative length \(prefix 0, suffix -1 bytes\)$/,
    );
    const lengthError = await sourceErrorOf(() =>
      load(
        'negative-length.parquet',
        leafFile(2, [column(only(2, Encoding.DELTA_LENGTH_BYTE_ARRAY, lengths))]),
      ),
    );
    assert.match(lengthError.message, /page 1 declares value 2 of a negative length \(-2 bytes\)$/);
  });

  it('refuses values declaring more bytes than their page holds, which hyparquet would read from past it', async () => {
    // Pages stored as is: hyparquet would take 12 bytes of the next page (its header) as the second value.
    const suffixes = Buffer.concat([
      Buffer.from(deltaInts([0, 0])),
      Buffer.from(deltaInts([1, 12])),
      Buffer.from('a'),
    ]);
    const lengths = Buffer.concat([Buffer.from(deltaInts([1, 12])), Buffer.from('a')]);
    const next = Buffer.concat([Buffer.from(deltaInts([2, 2])), Buffer.from('bbcc')]);
    const pages = (encoding: number, body: Buffer): Leaf => ({
      ...column(dataPageV1(2, encoding, body)),
      pages: [dataPageV1(2, encoding, body), dataPageV1(2, Encoding.DELTA_LENGTH_BYTE_ARRAY, next)],
    });
    for (const [name, leaf] of [
      ['suffixes.parquet', pages(Encoding.DELTA_BYTE_ARRAY, suffixes)],
      ['lengths.parquet', pages(Encoding.DELTA_LENGTH_BYTE_ARRAY, lengths)],
    ] as const) {
      const error = await sourceErrorOf(() => load(name, leafFile(4, [leaf])));
      assert.equal(error.code, 'ingest.parse_error');
      assert.match(
        error.message,
        /column "name", page 1 declares 13 bytes of values, more than the 1 its page holds after their lengths$/,
      );
    }
  });
});

/** The rest of `levels` from `start`, as RLE runs of equal neighbours. */
function runsOf(levels: readonly number[], start: number): number[] {
  const out: number[] = [];
  for (let i = start; i < levels.length; ) {
    let end = i;
    while (levels[end] === levels[i]) end++;
    out.push(...rleRun(end - i, levels[i] as number, 1));
    i = end;
  }
  return out;
}
