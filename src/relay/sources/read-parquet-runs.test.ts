// The level and index runs inside Parquet pages: a run header of a few bytes declares how many values it holds, and
// the decoder writes them all out. Hand-made V1 and V2 pages, stored as is and gzipped, must read back exactly;
// a run declaring more values than its page must fail the load before anything is decoded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bitPackedRun,
  Codec,
  dataPageV1,
  dataPageV2,
  dictionaryPage,
  Encoding,
  int32s,
  type Leaf,
  leafFile,
  prefixed,
  rleRun,
} from './parquet-hand-made-test-support.ts';
import { useParquetLoads } from './parquet-load-test-support.ts';
import { sourceErrorOf } from './source-test-support.ts';

const parquet = useParquetLoads('ambit-parquet-runs-');
const load = parquet.load;
/** What loading each file came to in a process of its own with a small heap (see useParquetLoads). */
const outcomesApart = async (files: Record<string, Buffer>) => (await parquet.apart(files)).outcomes;

/** The first eight values bit-packed, the rest as RLE runs of equal neighbours: both kinds of run in one page. */
function mixedRuns(values: readonly number[], width: number): number[] {
  const out = bitPackedRun(values.slice(0, 8), width);
  for (let i = 8; i < values.length; ) {
    let end = i;
    while (values[end] === values[i]) end++;
    out.push(...rleRun(end - i, values[i] as number, width));
    i = end;
  }
  return out;
}

const ROWS = 20;
const SIZES = [10, null, 20, 20, 20, 20, 20, 20, 20, 20, 30, null, null, 10, 10, 10, 10, 10, 10, 10];
const OPEN = [true, false, null, true, true, true, true, true, false, false];
const FLAGS = [...OPEN, ...OPEN];
const DICTIONARY = [10, 20, 30];

const defined = (cells: readonly unknown[]) => cells.map((cell) => (cell === null ? 0 : 1));
const indices = SIZES.filter((size) => size !== null).map((size) => DICTIONARY.indexOf(size));

/** An OPTIONAL INT32 column, dictionary-encoded, its nulls and indices in both kinds of run (a V1 page). */
function sizesV1(codec: number): Leaf {
  const body = Buffer.concat([
    prefixed(mixedRuns(defined(SIZES), 1)),
    Buffer.from([2, ...mixedRuns(indices, 2)]),
  ]);
  const pages = [dictionaryPage(3, int32s(DICTIONARY)), dataPageV1(ROWS, Encoding.RLE_DICTIONARY, body)];
  return { name: 'size', type: 1, repetition: 1, codec, pages };
}

/** An OPTIONAL BOOLEAN column, RLE-encoded (a V1 page): levels and values each after their byte length. */
function openV1(codec: number): Leaf {
  const flags = FLAGS.filter((flag) => flag !== null).map(Number);
  const body = Buffer.concat([prefixed(mixedRuns(defined(FLAGS), 1)), prefixed(mixedRuns(flags, 1))]);
  return { name: 'open', type: 0, repetition: 1, codec, pages: [dataPageV1(ROWS, Encoding.RLE, body)] };
}

/** The OPTIONAL INT32 column again in a V2 page: levels stored as is, indices after them (gzipped or not). */
function sizesV2(codec: number): Leaf {
  const counts = { values: ROWS, nulls: 3, rows: ROWS, encoding: Encoding.RLE_DICTIONARY };
  const levels = { repetition: Buffer.alloc(0), definition: Buffer.from(mixedRuns(defined(SIZES), 1)) };
  const page = dataPageV2(counts, levels, Buffer.from([2, ...mixedRuns(indices, 2)]));
  return {
    name: 'size_v2',
    type: 1,
    repetition: 1,
    codec,
    pages: [dictionaryPage(3, int32s(DICTIONARY)), page],
  };
}

describe('readParquet level and index runs', () => {
  for (const [label, codec] of [
    ['stored as is', Codec.UNCOMPRESSED],
    ['gzipped', Codec.GZIP],
  ] as const) {
    it(`reads V1 and V2 pages of both kinds of run back exactly, ${label}`, async () => {
      const bytes = leafFile(ROWS, [sizesV1(codec), openV1(codec), sizesV2(codec)]);
      const rows = await load(`valid-${codec}.parquet`, bytes);
      assert.deepEqual(
        rows,
        SIZES.map((size, i) => [size, FLAGS[i], size]),
      );
    });
  }

  it('refuses runs declaring more values than their page, before decoding them', async () => {
    const huge = 2 ** 31 - 1;
    const optional = (codec: number, body: Buffer): Leaf => ({
      name: 'size',
      type: 1,
      repetition: 1,
      codec,
      pages: [dictionaryPage(1, int32s([7])), dataPageV1(3, Encoding.RLE_DICTIONARY, body)],
    });
    const v2 = (definition: number[], values: number[]): Leaf => {
      const counts = { values: 3, nulls: 0, rows: 3, encoding: Encoding.RLE_DICTIONARY };
      const levels = { repetition: Buffer.alloc(0), definition: Buffer.from(definition) };
      const page = dataPageV2(counts, levels, Buffer.from(values));
      return {
        name: 'size',
        type: 1,
        repetition: 1,
        codec: Codec.GZIP,
        pages: [dictionaryPage(1, int32s([7])), page],
      };
    };
    const outcomes = await outcomesApart({
      // 113 bytes or so each, which hyparquet would have write 2^31 levels or indices into a growing array.
      'levels.parquet': leafFile(3, [optional(Codec.UNCOMPRESSED, prefixed(rleRun(huge, 1, 1)))]),
      'indices.parquet': leafFile(3, [
        optional(Codec.GZIP, Buffer.from([...prefixed(rleRun(3, 1, 1)), 1, ...rleRun(huge, 0, 1)])),
      ]),
      'v2-levels.parquet': leafFile(3, [v2(rleRun(huge, 1, 1), [1, ...rleRun(3, 0, 1)])]),
      // Bit width 0, and a bit-packed run whose count wraps negative: hyparquet would loop without end.
      'v2-spin.parquet': leafFile(3, [v2(rleRun(3, 1, 1), [0, 0xfd, 0xff, 0xff, 0xff, 0x07])]),
    });
    const refused = (what: string) =>
      new RegExp(
        `^ingest\\.parse_error: .* row group 1, column "size", page 2 holds .*run of -?\\d+ ${what}, more than the 3 its page has left$`,
      );
    assert.match(outcomes['levels.parquet'] ?? '', refused('definition levels'));
    assert.match(outcomes['levels.parquet'] ?? '', /an RLE run of 2147483647/);
    assert.match(outcomes['indices.parquet'] ?? '', refused('dictionary indices'));
    assert.match(outcomes['v2-levels.parquet'] ?? '', refused('definition levels'));
    assert.match(outcomes['v2-spin.parquet'] ?? '', refused('dictionary indices'));
    assert.match(outcomes['v2-spin.parquet'] ?? '', /a bit-packed run of -16 /);
  });

  it('refuses a compressed page declaring it expands to more than its codec can make of its bytes', async () => {
    const body = int32s([1, 2, 3]);
    const page = dataPageV1(3, Encoding.PLAIN, body, 64 * 1024 * 1024);
    const leaf: Leaf = { name: 'id', type: 1, repetition: 0, codec: Codec.GZIP, pages: [page] };
    const error = await sourceErrorOf(() => load('expands.parquet', leafFile(3, [leaf])));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(
      error.message,
      /page 1 declares it expands to 67108864 bytes, more than GZIP can make of \d+ \(1032 times/,
    );
  });

  it('refuses a dictionary page declaring more entries than its bytes hold', async () => {
    const pages = [
      dictionaryPage(1000, int32s([7])),
      dataPageV1(1000, Encoding.RLE_DICTIONARY, Buffer.from([0])),
    ];
    const leaf: Leaf = { name: 'id', type: 1, repetition: 0, codec: Codec.UNCOMPRESSED, pages };
    const error = await sourceErrorOf(() => load('dictionary.parquet', leafFile(1000, [leaf])));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(
      error.message,
      /column "id", page 1 declares 1000 dictionary entries, more than its 4 bytes can hold/,
    );
  });

  it('refuses dictionary indices past the dictionary, which would be served as nulls, naming the row', async () => {
    const past = Buffer.from([4, ...rleRun(3, 9, 4)]);
    for (const codec of [Codec.UNCOMPRESSED, Codec.GZIP]) {
      const pages = [dictionaryPage(2, int32s([10, 20])), dataPageV1(3, Encoding.RLE_DICTIONARY, past)];
      const leaf: Leaf = { name: 'id', type: 1, repetition: 0, codec, pages };
      const error = await sourceErrorOf(() => load(`past-${codec}.parquet`, leafFile(3, [leaf])));
      assert.equal(error.code, 'ingest.parse_error');
      assert.equal(error.row, 1);
      assert.equal(error.column, 'id');
      assert.match(error.message, /row group 1, column "id": its cell refers to no entry of its dictionary/);
    }
  });

  it('refuses a dictionary-encoded page in a column chunk without a dictionary, whose indices would be served', async () => {
    const page = dataPageV1(3, Encoding.RLE_DICTIONARY, Buffer.from([1, ...rleRun(3, 1, 1)]));
    const leaf: Leaf = { name: 'id', type: 1, repetition: 0, codec: Codec.UNCOMPRESSED, pages: [page] };
    const error = await sourceErrorOf(() => load('no-dictionary.parquet', leafFile(3, [leaf])));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(
      error.message,
      /column "id", page 1 is dictionary-encoded, but its column chunk has no dictionary/,
    );
  });

  it('refuses a V2 page declaring more bytes of levels than it holds', async () => {
    const counts = { values: 3, nulls: 0, rows: 3, encoding: Encoding.PLAIN, definitionBytes: 4096 };
    const levels = { repetition: Buffer.alloc(0), definition: Buffer.from(rleRun(3, 1, 1)) };
    const page = dataPageV2(counts, levels, int32s([1, 2, 3]));
    const leaf: Leaf = { name: 'id', type: 1, repetition: 1, codec: Codec.UNCOMPRESSED, pages: [page] };
    const error = await sourceErrorOf(() => load('v2-levels-length.parquet', leafFile(3, [leaf])));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(error.message, /page 1 declares 4096 bytes of levels, more than the page holds/);
  });
});
