// ZSTD pages: a frame header declares the size it decompresses to, and the decompressor allocates it, whatever the
// page header says. Pages written by a real compressor (frames with and without that size, a skippable frame,
// checksums) must read back exactly; frames declaring or holding more than their page must fail the load before
// anything is allocated for them.
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

const parquet = useParquetLoads('ambit-parquet-zstd-');
const limits = () => ({ baseDir: parquet.dir(), maxFileBytes: 1e9, xlsxMaxFileBytes: 1e9 });
const outcomesApart = parquet.apart;

/** The values of the column the real frames below hold: 512 in each frame. */
const VALUES = Array.from({ length: 1024 }, (_, i) => (i % 64) * 3 + Math.floor(i / 512));

// The first 512 values as `zstd -19` writes a file: frame content size declared, one compressed block, checksum.
const DECLARED = Buffer.from(
  '28b52ffd64000715040006d01d1d50db6650d7755dd7755dd7755dd7755dd7755dd7755dd7755dd72d9c141400150015006f9cf1c5154f1cf1' +
    'c30d2f9cf0c1050f1cf0ef03ef9cf3cd35cf1cf3cb2daf9cf2c9258f1cf2c71d016f9df5d5554f1df5d34d2f9df4d1450f1df4cf3d01ef9df7' +
    'dd75cf1df7db6daf9df6d9658f1df6d75d01010000fd0efc6b0a4c422195',
  'hex',
);
// The last 512 as `zstd -19` writes a stream: no content size, an 8 MiB window (more than the page), checksum.
const STREAMED = Buffer.from(
  '28b52ffd04681d040006101e1d60bd1b4092540101000000000000000000000000000000000000289b021500150015007fdcf1c6195f5cf1c4' +
    '113fdcf0c2091f5cf0c00101ffdcf3ce39df5cf3cc31bfdcf2ca299f5cf2c821017fddf5d6595f5df5d4513fddf4d2491f5df4d04101ffddf7' +
    'de79df5df7dc71bfddf6da699f5df6d86101010000fd0efc6b0a0ab63934',
  'hex',
);
/** A skippable frame of 3 bytes, which decompresses to nothing. */
const SKIPPABLE = Buffer.from([0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
/** A block header: size, type (0 raw, 1 RLE, 2 compressed) and whether it is the frame's last. */
const block = (size: number, type: number, last: boolean) => {
  const header = size * 8 + type * 2 + (last ? 1 : 0);
  return [header & 0xff, (header >> 8) & 0xff, header >> 16];
};
/** A frame declaring `size` bytes in 4 bytes (Single_Segment), holding one RLE block of one byte. */
const declaring = (size: number) => [...MAGIC, 0xa0, ...int32s([size]), ...block(1, 1, true), 7];
/** A frame declaring no size, with a 128 KiB window: `count` RLE blocks of 128 KiB, then an empty compressed one. */
const undeclared = (count: number) => [
  ...MAGIC,
  0x00,
  7 << 3,
  ...Array.from({ length: count }, () => [...block(128 * 1024, 1, false), 7]).flat(),
  ...block(0, 2, true),
];

/** A file of one REQUIRED INT32 column holding `values`, in one PLAIN page stored as `stored`. */
function zstdFile(values: readonly number[], stored: Buffer): Buffer {
  const page = { ...dataPageV1(values.length, Encoding.PLAIN, int32s(values)), stored };
  const leaf: Leaf = { name: 'n', type: 1, repetition: 0, codec: Codec.ZSTD, pages: [page] };
  return leafFile(values.length, [leaf]);
}

describe('readParquet ZSTD pages', () => {
  it('reads a page of several frames, declaring their size or not, back exactly', async () => {
    await writeFile(
      join(parquet.dir(), 'valid.parquet'),
      zstdFile(VALUES, Buffer.concat([DECLARED, SKIPPABLE, STREAMED])),
    );
    const source = await openFileSource('facilities', { type: 'file', path: 'valid.parquet' }, limits());
    assert.deepEqual(
      await rowsOf(source),
      VALUES.map((value) => [value]),
    );
  });

  it('reads a frame of undeclared size before another when its blocks give its size', async () => {
    const raw = int32s(VALUES.slice(0, 2));
    const frame = Buffer.from([...MAGIC, 0x00, 0, ...block(raw.length, 0, true), ...raw]);
    await writeFile(
      join(parquet.dir(), 'raw-first.parquet'),
      zstdFile(VALUES.slice(0, 514), Buffer.concat([frame, DECLARED])),
    );
    const source = await openFileSource('facilities', { type: 'file', path: 'raw-first.parquet' }, limits());
    assert.deepEqual(
      await rowsOf(source),
      [...VALUES.slice(0, 2), ...VALUES.slice(0, 512)].map((value) => [value]),
    );
  });

  it('refuses frames declaring or holding more than their page, before decompressing them', async () => {
    const three = [1, 2, 3];
    const { outcomes, mib } = await outcomesApart({
      // 26 bytes whose two frames declare 512 MiB each, for a page of 12 bytes.
      'declared.parquet': zstdFile(three, Buffer.from([...declaring(2 ** 29), ...declaring(2 ** 29)])),
      // 16 KiB of RLE blocks in a frame declaring no size: 512 MiB of blocks, for a page of 12 bytes.
      'blocks.parquet': zstdFile(three, Buffer.from(undeclared(4096))),
      // A raw block of 100 bytes, 5 of them stored.
      'truncated.parquet': zstdFile(
        three,
        Buffer.from([...MAGIC, 0xa0, ...int32s([12]), ...block(100, 0, true), 1]),
      ),
      // A frame of undeclared size (its block compressed) followed by another: where the second starts is unknown.
      'unknown-first.parquet': zstdFile(VALUES, Buffer.concat([STREAMED, DECLARED])),
    });
    const refused = (why: string) =>
      new RegExp(`^ingest\\.parse_error: .* row group 1, column "n", page 1 ${why}$`);
    assert.match(
      outcomes['declared.parquet'] ?? '',
      refused('holds ZSTD frames of at least 536870912 bytes, more than the 12 its header declares'),
    );
    assert.match(
      outcomes['blocks.parquet'] ?? '',
      refused('holds a ZSTD frame of at least 536870912 bytes, not the 12 its header leaves it'),
    );
    assert.match(outcomes['truncated.parquet'] ?? '', refused('holds a ZSTD frame cut short'));
    assert.match(
      outcomes['unknown-first.parquet'] ?? '',
      refused('holds a ZSTD frame of undeclared size followed by another frame'),
    );
    assert.ok(mib < 512, `the loads held ${Math.round(mib)} MiB resident`);
  });

  it('refuses frames holding less than their page or than they declare', async () => {
    const stored = (size: number, bytes: Buffer) => [
      ...MAGIC,
      0xa0,
      ...int32s([size]),
      ...block(bytes.length, 0, true),
      ...bytes,
    ];
    const body = int32s([1, 2, 3]);
    const cases = {
      // One int32 short of the page: hyparquet would find the page short.
      'short.parquet': [
        stored(8, body.subarray(0, 8)),
        'holds ZSTD frames of 8 bytes, fewer than the 12 its header declares',
      ],
      // Declares the page's 12 bytes, stores 4: the rest would be read as zeros.
      'hollow.parquet': [
        stored(12, body.subarray(0, 4)),
        'holds a ZSTD frame declaring 12 bytes whose blocks hold at most 4',
      ],
    } as const;
    for (const [name, [frame, why]] of Object.entries(cases)) {
      await writeFile(join(parquet.dir(), name), zstdFile([1, 2, 3], Buffer.from(frame)));
      const error = await sourceErrorOf(async () =>
        rowsOf(await openFileSource('facilities', { type: 'file', path: name }, limits())),
      );
      assert.equal(error.code, 'ingest.parse_error');
      assert.match(error.message, new RegExp(`row group 1, column "n", page 1 ${why}$`));
    }
  });
});
