// Parquet column chunks compressed with a codec the relay has no decompressor for (LZO, a codec number the format
// does not define): the load must fail when the file is opened, naming the column and the codec and listing the
// codecs the relay reads, instead of failing at the first row group with the codec only in the error's cause.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openFileSource } from './open-file-source.ts';
import {
  Codec,
  dataPageV1,
  Encoding,
  int32s,
  type Leaf,
  leafFile,
} from './parquet-hand-made-test-support.ts';
import { useParquetLoads } from './parquet-load-test-support.ts';
import { rowsOf, sourceErrorOf } from './source-test-support.ts';

const parquet = useParquetLoads('ambit-parquet-codecs-');
const LZO = 3;
const SUPPORTED = 'UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4 and LZ4_RAW';

/** A REQUIRED INT32 column of `values` in one PLAIN page, stored as the codec makes it (as is for LZO and others). */
const leaf = (name: string, codec: number, values: readonly number[]): Leaf => ({
  name,
  type: 1,
  repetition: 0,
  codec,
  pages: [dataPageV1(values.length, Encoding.PLAIN, int32s(values))],
});

async function open(name: string, bytes: Buffer) {
  await writeFile(join(parquet.dir(), name), bytes);
  return openFileSource(
    'facilities',
    { type: 'file', path: name },
    { baseDir: parquet.dir(), maxFileBytes: 1e9, xlsxMaxFileBytes: 1e9 },
  );
}

describe('readParquet compression codecs', () => {
  it('reads columns compressed with codecs it has a decompressor for', async () => {
    const file = leafFile(2, [leaf('id', Codec.GZIP, [1, 2]), leaf('n', Codec.ZSTD, [3, 4])]);
    assert.deepEqual(await rowsOf(await open('readable.parquet', file)), [
      [1, 3],
      [2, 4],
    ]);
  });

  it('refuses a column chunk compressed with LZO when the file is opened, naming column and codec', async () => {
    const file = leafFile(2, [leaf('id', Codec.GZIP, [1, 2]), leaf('weight', LZO, [3, 4])]);
    // Opening fails: no row group is read, so nothing is decoded before the refusal.
    const error = await sourceErrorOf(() => open('lzo.parquet', file));
    assert.equal(error.code, 'ingest.parse_error');
    assert.equal(
      error.detail,
      `lzo.parquet is not a readable Parquet file: column "weight" (row group 1) is compressed with LZO, which the relay cannot decompress; it reads ${SUPPORTED}`,
    );
  });

  it('refuses a codec number the format does not define, naming the number', async () => {
    const file = leafFile(2, [leaf('id', 42, [1, 2])]);
    const error = await sourceErrorOf(() => open('unknown-codec.parquet', file));
    assert.equal(error.code, 'ingest.parse_error');
    assert.equal(
      error.detail,
      `unknown-codec.parquet is not a readable Parquet file: column "id" (row group 1) is compressed with codec 42, which Parquet does not define; the relay reads ${SUPPORTED}`,
    );
  });
});
