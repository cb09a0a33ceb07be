// Parquet files whose footer or page headers do not describe their data: hand-made (a few hundred bytes each, thrift
// written here) so that they can say what no writer would. Each must fail as a parse error or a limit, decoding
// nothing it cannot hold and serving nothing it does not have.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openFileSource, type SourceRows } from './open-file-source.ts';
import { type Field, struct, withFooter } from './parquet-hand-made-test-support.ts';
import { PARQUET_MAX_PAGE_BYTES } from './parquet-pages.ts';
import { PARQUET_MAX_CELLS } from './read-parquet.ts';
import { rowsOf, sourceErrorOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-parquet-footer-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Column {
  readonly name: string;
  /** Values of a PLAIN page, or one value repeated `count` times (a dictionary page and a 1-byte data page). */
  readonly values: readonly number[] | { readonly value: number; readonly count: number };
  /** Leave its column chunk out of the row group. */
  readonly missing?: boolean;
  /** The codec the footer names (0 UNCOMPRESSED, 2 GZIP) and the size the data page header says it expands to. */
  readonly codec?: number;
  readonly uncompressedSize?: number;
  /** The value count the footer declares for the chunk (the rows by default). */
  readonly declaredValues?: number;
}

/** A file of REQUIRED INT32 columns in one uncompressed row group, which declares `rows` rows. */
function handMade(rows: number, columns: readonly Column[], schema?: readonly Field[][]): Buffer {
  const parts: Buffer[] = [Buffer.from('PAR1')];
  let offset = 4;
  const chunks: Field[][] = [];
  const add = (bytes: Buffer) => {
    parts.push(bytes);
    offset += bytes.length;
  };
  for (const column of columns) {
    const start = offset;
    let dictionaryOffset: number | undefined;
    let page: Buffer;
    let count: number;
    let encoding: number;
    if (Array.isArray(column.values)) {
      page = Buffer.from(Int32Array.from(column.values).buffer);
      count = column.values.length;
      encoding = 0;
    } else {
      const { value, count: repeated } = column.values as { value: number; count: number };
      const dictionary = Buffer.alloc(4);
      dictionary.writeInt32LE(value);
      dictionaryOffset = offset;
      add(
        Buffer.from(
          struct([
            [1, 5, 2],
            [2, 5, 4],
            [3, 5, 4],
            [
              7,
              12,
              [
                [1, 5, 1],
                [2, 5, 0],
              ],
            ],
          ]),
        ),
      );
      add(dictionary);
      // Bit width 0: every index is 0, however many there are.
      page = Buffer.from([0]);
      count = repeated;
      encoding = 8;
    }
    const dataOffset = offset;
    const header: Field[] = [
      [1, 5, 0],
      [2, 5, column.uncompressedSize ?? page.length],
      [3, 5, page.length],
      [
        5,
        12,
        [
          [1, 5, count],
          [2, 5, encoding],
          [3, 5, 3],
          [4, 5, 3],
        ],
      ],
    ];
    add(Buffer.from(struct(header)));
    add(page);
    if (column.missing) continue;
    const meta: Field[] = [
      [1, 5, 1],
      [2, 9, [0, 8], 5],
      [3, 9, [column.name], 8],
      [4, 5, column.codec ?? 0],
      [5, 6, column.declaredValues ?? rows],
      [6, 6, offset - start],
      [7, 6, offset - start],
      [9, 6, dataOffset],
      ...(dictionaryOffset === undefined ? [] : ([[11, 6, dictionaryOffset]] as Field[])),
    ];
    chunks.push([
      [2, 6, start],
      [3, 12, meta],
    ]);
  }
  const elements: Field[][] = schema?.map((fields) => [...fields]) ?? [
    [
      [4, 8, 'schema'],
      [5, 5, columns.length],
    ],
    ...columns.map((column): Field[] => [
      [1, 5, 1],
      [3, 5, 0],
      [4, 8, column.name],
    ]),
  ];
  return withFooter(parts, elements, rows, chunks);
}

async function open(name: string, bytes: Buffer): Promise<SourceRows> {
  await writeFile(join(dir, name), bytes);
  return openFileSource(
    'facilities',
    { type: 'file', path: name },
    { baseDir: dir, maxFileBytes: 1e9, xlsxMaxFileBytes: 1e9 },
  );
}

describe('readParquet with a footer that does not describe the data', () => {
  it('reads the hand-made file back, as the footer describes it', async () => {
    const source = await open('plain.parquet', handMade(3, [{ name: 'id', values: [1, 2, 3] }]));
    assert.deepEqual(source.columns, ['id']);
    assert.deepEqual(await rowsOf(source), [[1], [2], [3]]);
  });

  it('refuses a schema whose tree is cut short or missing as a parse error', async () => {
    const root = (children: number): Field[] => [
      [4, 8, 'schema'],
      [5, 5, children],
    ];
    for (const [name, schema] of [
      ['short.parquet', [root(3), [[1, 5, 1] as const, [3, 5, 0] as const, [4, 8, 'id'] as const]]],
      ['rootless.parquet', []],
    ] as const) {
      const bytes = handMade(3, [{ name: 'id', values: [1, 2, 3] }], schema as unknown as Field[][]);
      const error = await sourceErrorOf(async () => rowsOf(await open(name, bytes)));
      assert.equal(error.code, 'ingest.parse_error', name);
      assert.match(error.message, /is not a readable Parquet file/);
    }
  });

  it('refuses a negative row count as a parse error', async () => {
    const bytes = handMade(-5, [{ name: 'id', values: [1, 2, 3] }]);
    const error = await sourceErrorOf(async () => rowsOf(await open('negative.parquet', bytes)));
    assert.equal(error.code, 'ingest.parse_error');
  });

  it('refuses a file declaring more cells than the relay reads, before decoding any', async () => {
    // About 150 bytes that decode to 10,000,001 values.
    const rows = PARQUET_MAX_CELLS + 1;
    const bytes = handMade(rows, [{ name: 'id', values: { value: 7, count: rows } }]);
    assert.ok(bytes.length < 200);
    const error = await sourceErrorOf(() => open('bomb.parquet', bytes));
    assert.equal(error.code, 'ingest.column_limit');
    assert.match(error.message, /10000001 rows/);
  });

  it('refuses a row group without the column chunk of a column instead of serving nulls', async () => {
    const bytes = handMade(3, [
      { name: 'id', values: [1, 2, 3] },
      { name: 'size', values: [4, 5, 6], missing: true },
    ]);
    const source = await open('missing-chunk.parquet', bytes);
    assert.deepEqual(source.columns, ['id', 'size']);
    const error = await sourceErrorOf(() => rowsOf(source));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(error.message, /row group 1/);
    assert.match(error.message, /"size"/);
  });

  // Each header below is a few bytes that would have hyparquet allocate gigabytes: the load must stop at it.
  it('refuses a page that declares it expands to more bytes than the relay decompresses', async () => {
    const size = 2 ** 31 - 1;
    assert.ok(size > PARQUET_MAX_PAGE_BYTES);
    const bytes = handMade(3, [{ name: 'id', values: [1, 2, 3], codec: 2, uncompressedSize: size }]);
    const error = await sourceErrorOf(async () => rowsOf(await open('page-bomb.parquet', bytes)));
    assert.equal(error.code, 'ingest.file_too_large');
    assert.match(error.message, /row group 1, column "id", page 1 expands to 2147483647 bytes/);
  });

  it('refuses a data page that declares more values than its row group has rows', async () => {
    const bytes = handMade(3, [{ name: 'id', values: { value: 7, count: 2 ** 31 - 1 } }]);
    const error = await sourceErrorOf(async () => rowsOf(await open('values-bomb.parquet', bytes)));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(error.message, /column "id", page 2 declares 2147483647 values, more than .* left \(3\)/);
  });

  describe('in a repeated column, whose values are not one per row', () => {
    const schema: Field[][] = [
      [
        [4, 8, 'schema'],
        [5, 5, 1],
      ],
      [
        [1, 5, 1],
        [3, 5, 2],
        [4, 8, 'tags'],
      ],
    ];

    it('refuses a data page that declares more values than the footer gives its column chunk', async () => {
      const tags: Column = { name: 'tags', values: { value: 7, count: 2 ** 31 - 1 }, declaredValues: 5 };
      const error = await sourceErrorOf(async () =>
        rowsOf(await open('nested-bomb.parquet', handMade(3, [tags], schema))),
      );
      assert.equal(error.code, 'ingest.parse_error');
      assert.match(
        error.message,
        /column "tags", page 2 declares 2147483647 values, more than .* left \(5\)/,
      );
    });

    it('refuses a footer that declares more nested values than the relay reads, before decoding any', async () => {
      const tags: Column = {
        name: 'tags',
        values: { value: 7, count: 5 },
        declaredValues: PARQUET_MAX_CELLS + 1,
      };
      const error = await sourceErrorOf(() => open('nested-limit.parquet', handMade(3, [tags], schema)));
      assert.equal(error.code, 'ingest.column_limit');
      assert.match(error.message, /10000001 values in nested/);
    });
  });
});
