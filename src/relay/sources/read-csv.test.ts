// CSV reading: delimiters, quotes, header handling, BOM, malformed input, limits and batching.
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rename, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TableConfig } from '../config/schema.ts';
import { openFileSource, type SourceRows } from './open-file-source.ts';
import { CSV_LIMITS, readCsv } from './read-csv.ts';
import { BATCH_ROWS } from './source-file.ts';
import { csvFileOf, DEFAULT_CSV, rowsOf, sourceErrorOf, withWaitingWriter } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-csv-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LIMITS = { maxFileBytes: 256 * 1024 * 1024, xlsxMaxFileBytes: 256 * 1024 * 1024 };
type Csv = { header_row?: boolean; delimiter?: string; quote?: string };

async function open(name: string, content: string, csv?: Csv): Promise<SourceRows> {
  await writeFile(join(dir, name), content);
  const source: TableConfig['source'] = { type: 'file', path: name };
  if (csv !== undefined) {
    source.format = { csv: { header_row: true, delimiter: ',', quote: '"', ...csv } };
  }
  return openFileSource('people', source, { baseDir: dir, ...LIMITS });
}

const fileOf = (name: string) => csvFileOf(dir, name);

describe('readCsv', () => {
  it('reads a well-formed file with cells exactly as written', async () => {
    const source = await open(
      'people.csv',
      'id,name,note\n1,Ada, padded \n2,"Lovelace, A","said ""hi""\nthen left"\n3,,\n',
    );
    assert.deepEqual(source.columns, ['id', 'name', 'note']);
    assert.deepEqual(await rowsOf(source), [
      ['1', 'Ada', ' padded '],
      ['2', 'Lovelace, A', 'said "hi"\nthen left'],
      ['3', '', ''],
    ]);
    assert.ok(source.byteSize > 0);
  });

  it('infers a tab delimiter from .tsv', async () => {
    const source = await open('people.tsv', 'id\tname\n1\tA, B\n');
    assert.deepEqual(source.columns, ['id', 'name']);
    assert.deepEqual(await rowsOf(source), [['1', 'A, B']]);
  });

  it('uses the configured delimiter and quote', async () => {
    const semicolon = await open('semi.csv', 'id;name\n1;"a;b"\n', { delimiter: ';' });
    assert.deepEqual(await rowsOf(semicolon), [['1', 'a;b']]);
    const single = await open('single.csv', "id,name\n1,'it''s, fine'\n", { quote: "'" });
    assert.deepEqual(await rowsOf(single), [['1', "it's, fine"]]);
  });

  it('synthesises column names when there is no header row', async () => {
    const source = await open('bare.csv', '1,Ada\n2,Grace\n', { header_row: false });
    assert.deepEqual(source.columns, ['column_1', 'column_2']);
    assert.deepEqual(await rowsOf(source), [
      ['1', 'Ada'],
      ['2', 'Grace'],
    ]);
  });

  it('strips a UTF-8 BOM and accepts CRLF line ends', async () => {
    const source = await open('bom.csv', '\uFEFFid,name\r\n1,Ada\r\n');
    assert.deepEqual(source.columns, ['id', 'name']);
    assert.deepEqual(await rowsOf(source), [['1', 'Ada']]);
  });

  describe('takes CRLF, LF and CR as record ends, mixed in any way', () => {
    const cases: [string, string, string[][]][] = [
      [
        'LF header, CRLF rows',
        'id,name\n1,Ada\r\n2,Grace\r\n',
        [
          ['1', 'Ada'],
          ['2', 'Grace'],
        ],
      ],
      [
        'CRLF header, LF rows',
        'id,name\r\n1,Ada\n2,Grace\n',
        [
          ['1', 'Ada'],
          ['2', 'Grace'],
        ],
      ],
      ['CRLF header, LF rows, one column', 'id\r\n1\n2\r\n3\r\n', [['1'], ['2'], ['3']]],
      ['LF header, CRLF rows, one column', 'id\n1\r\n2\r\n3', [['1'], ['2'], ['3']]],
      [
        'CR only',
        'id,name\r1,Ada\r2,Grace\r',
        [
          ['1', 'Ada'],
          ['2', 'Grace'],
        ],
      ],
      ['CR, LF and CRLF in turn', 'id\r1\n2\r\n3\r4\n', [['1'], ['2'], ['3'], ['4']]],
      ['blank lines of each kind', 'id\r\n\r\n1\n\n2\r\r3\r\n', [['1'], ['2'], ['3']]],
    ];
    for (const [name, content, rows] of cases) {
      it(name, async () => {
        const source = await open(`ends-${name.replaceAll(/\W+/g, '-')}.csv`, content);
        assert.deepEqual(source.columns, rows[0]?.length === 1 ? ['id'] : ['id', 'name']);
        assert.deepEqual(await rowsOf(source), rows);
      });
    }

    it('keeps the line breaks of a quoted field as written', async () => {
      const source = await open(
        'quoted-ends.csv',
        'id,note\n1,"a\r\nb"\r\n2,"c\nd"\n3,"e\rf"\r4,"g\r\n"\r\n',
      );
      assert.deepEqual(await rowsOf(source), [
        ['1', 'a\r\nb'],
        ['2', 'c\nd'],
        ['3', 'e\rf'],
        ['4', 'g\r\n'],
      ]);
    });

    it('reads a CRLF split across two reads of the file as one record end', async () => {
      // The file is read 64 KiB at a time: the CR of one record end is the last byte of the first read.
      const header = 'id,filler\n';
      const first = `1,${'x'.repeat(65_536 - header.length - 3)}`;
      const content = `${header}${first}\r\n2,y\r\n`;
      assert.equal(content.indexOf('\r'), 65_535);
      const source = await open('split-crlf.csv', content);
      const rows = await rowsOf(source);
      assert.deepEqual(
        rows.map((row) => [row[0], String(row[1]).length]),
        [
          ['1', first.length - 2],
          ['2', 1],
        ],
      );
    });
  });

  describe('reads UTF-8 only', () => {
    it('refuses a byte that is not UTF-8, naming the line, without serving U+FFFD', async () => {
      const bytes = Buffer.concat([
        Buffer.from('id,name\n1,Ada\r\n2,caf'),
        Buffer.from([0xe9]),
        Buffer.from('\n'),
      ]);
      await writeFile(join(dir, 'latin1.csv'), bytes);
      // Opening reads the first 64 KiB, which hold the whole file: it fails there already.
      const error = await sourceErrorOf(async () =>
        rowsOf(
          await openFileSource('people', { type: 'file', path: 'latin1.csv' }, { baseDir: dir, ...LIMITS }),
        ),
      );
      assert.equal(error.code, 'ingest.invalid_encoding');
      assert.match(error.message, /table people/);
      assert.match(error.message, /latin1\.csv is not UTF-8 text at line 3/);
    });

    it('refuses a byte past the first 64 KiB while the rows are read, naming its line', async () => {
      const rows = Array.from({ length: 10_000 }, (_, index) => `${index},name ${index}\r\n`).join('');
      const bytes = Buffer.concat([
        Buffer.from(`id,name\n${rows}10000,na`),
        Buffer.from([0xff]),
        Buffer.from('\n'),
      ]);
      await writeFile(join(dir, 'late-latin1.csv'), bytes);
      const source = await openFileSource(
        'people',
        { type: 'file', path: 'late-latin1.csv' },
        { baseDir: dir, ...LIMITS },
      );
      const error = await sourceErrorOf(() => rowsOf(source));
      assert.equal(error.code, 'ingest.invalid_encoding');
      assert.match(error.message, /late-latin1\.csv is not UTF-8 text at line 10002/);
    });

    it('refuses a header that is not UTF-8 when the file is opened', async () => {
      await writeFile(
        join(dir, 'header-latin1.csv'),
        Buffer.from([0x69, 0x64, 0x2c, 0x6e, 0xe9, 0x0a, 0x31, 0x2c, 0x32]),
      );
      const error = await sourceErrorOf(() =>
        openFileSource('people', { type: 'file', path: 'header-latin1.csv' }, { baseDir: dir, ...LIMITS }),
      );
      assert.equal(error.code, 'ingest.invalid_encoding');
      assert.match(error.message, /at line 1/);
    });

    it('refuses UTF-16, overlong forms, surrogates and a sequence cut off by the end of the file', async () => {
      const files: [string, Buffer][] = [
        ['utf16.csv', Buffer.from('\uFEFFid\n1\n', 'utf16le')],
        ['overlong.csv', Buffer.from([0x69, 0x64, 0x0a, 0xc0, 0xaf, 0x0a])],
        ['surrogate.csv', Buffer.from([0x69, 0x64, 0x0a, 0x31, 0x0a, 0xed, 0xa0, 0x80, 0x0a])],
        ['cut.csv', Buffer.from([0x69, 0x64, 0x0a, 0x31, 0x0a, 0x32, 0xe2, 0x82])],
      ];
      for (const [name, bytes] of files) {
        await writeFile(join(dir, name), bytes);
        const error = await sourceErrorOf(async () =>
          rowsOf(await openFileSource('people', { type: 'file', path: name }, { baseDir: dir, ...LIMITS })),
        );
        assert.equal(error.code, 'ingest.invalid_encoding', name);
      }
    });

    it('reads multi-byte characters, also where one straddles two reads of the file', async () => {
      const header = 'id,name\n';
      const filler = `1,${'x'.repeat(65_536 - header.length - 3)}`;
      // `€` is three bytes: the first is the last byte of the first 64 KiB read.
      const content = `${header}${filler}€\n2,Zoë 𝄞\n`;
      assert.equal(Buffer.from(content).indexOf(Buffer.from('€')), 65_535);
      const source = await open('straddle.csv', content);
      const rows = await rowsOf(source);
      assert.equal(rows[0]?.[1], `${filler.slice(2)}€`);
      assert.deepEqual(rows[1], ['2', 'Zoë 𝄞']);
    });
  });

  it('names the data row of an inconsistent record', async () => {
    const source = await open('ragged.csv', 'id,name\n1,a\n2,b\n3,c,extra\n4,d\n');
    const error = await sourceErrorOf(() => rowsOf(source));
    assert.equal(error.code, 'ingest.parse_error');
    assert.equal(error.tableId, 'people');
    assert.equal(error.row, 3);
    assert.match(error.message, /table people/);
    assert.match(error.message, /data row 3/);
    assert.match(error.message, /ragged\.csv/);
    assert.doesNotMatch(error.message, /extra/, 'cell values stay out of the message');
  });

  it('rejects an unterminated quote, naming the row', async () => {
    const source = await open('open-quote.csv', 'id,name\n1,a\n2,"s3cret value\n');
    const error = await sourceErrorOf(() => rowsOf(source));
    assert.equal(error.code, 'ingest.parse_error');
    assert.equal(error.row, 2);
    assert.match(error.message, /quoted field is never closed/);
    assert.doesNotMatch(error.message, /s3cret/);
  });

  it('refuses text after a closing quote rather than serve the field with its quotes, naming the line', async () => {
    // Read as `"Smith, J"r` and `x`, quotes kept; other readers give `Smith, Jr`.
    for (const [name, content] of [
      ['after-quote.csv', 'id,name,note\n1,a,b\n2,"Smith, J"r,x\n'],
      ['space-after-quote.csv', 'id,name\n1,a\n2,"s3cret" \n'],
      ['header-after-quote.csv', '"id"x,name\n1,a\n'],
    ]) {
      const error = await sourceErrorOf(async () => rowsOf(await open(name as string, content as string)));
      assert.equal(error.code, 'ingest.parse_error', name);
      assert.match(
        error.message,
        /line [0-9]: a closing quote is followed by something other than a delimiter/,
      );
      assert.doesNotMatch(error.message, /Smith|s3cret/);
    }
    const error = await sourceErrorOf(async () =>
      rowsOf(await open('semicolon-quote.csv', "id;name\n1;'a';'b'c\n", { delimiter: ';', quote: "'" })),
    );
    assert.match(error.message, /at line 2: a closing quote/);
  });

  it('keeps a quote that does not open a field as text, as spreadsheets do', async () => {
    const source = await open(
      'inches.csv',
      '\uFEFF"id",name\r\n1,12" pipe\r\n2, "spaced"\r\n3,"said ""hi"""\r\n',
    );
    assert.deepEqual(source.columns, ['id', 'name']);
    assert.deepEqual(await rowsOf(source), [
      ['1', '12" pipe'],
      ['2', ' "spaced"'],
      ['3', 'said "hi"'],
    ]);
  });

  it('treats an empty file and a header-only file as zero rows', async () => {
    const empty = await open('empty.csv', '');
    assert.deepEqual(empty.columns, []);
    assert.deepEqual(await rowsOf(empty), []);
    const headerOnly = await open('header.csv', 'id,name\n');
    assert.deepEqual(headerOnly.columns, ['id', 'name']);
    assert.deepEqual(await rowsOf(headerOnly), []);
  });

  it('yields 20,000 rows in several bounded batches, in order', async () => {
    const lines = ['id,value'];
    for (let index = 1; index <= 20_000; index++) lines.push(`${index},v${index}`);
    const source = await open('many.csv', `${lines.join('\n')}\n`);
    const sizes: number[] = [];
    const ids: unknown[] = [];
    for await (const batch of source.batches) {
      sizes.push(batch.length);
      for (const row of batch) ids.push(row[0]);
    }
    assert.ok(sizes.length > 1, `expected several batches, got ${sizes.length}`);
    assert.ok(sizes.every((size) => size <= BATCH_ROWS));
    assert.equal(ids.length, 20_000);
    assert.equal(ids[0], '1');
    assert.equal(ids[19_999], '20000');
  });

  it('can be iterated twice with the same result', async () => {
    const source = await open('twice.csv', 'id\n1\n2\n');
    assert.deepEqual(await rowsOf(source), await rowsOf(source));
  });

  it('caps columns at 65,536, cells at 10,000,000 and records at 64 MiB by default', () => {
    assert.deepEqual(CSV_LIMITS, {
      maxColumns: 65_536,
      maxCells: 10_000_000,
      maxRecordBytes: 64 * 1024 * 1024,
    });
  });

  it('refuses too many columns before reading any row', async () => {
    await writeFile(join(dir, 'wide.csv'), 'a,b,c,d\n1,2,3,4\n');
    const file = await fileOf('wide.csv');
    const error = await sourceErrorOf(() => readCsv(file, DEFAULT_CSV, { maxColumns: 3, maxCells: 100 }));
    assert.equal(error.code, 'ingest.column_limit');
    assert.match(error.message, /4 columns, over the limit of 3/);
  });

  it('stops at the cell cap, naming the first row past it', async () => {
    await writeFile(join(dir, 'cells.csv'), 'a,b\n1,2\n3,4\n5,6\n7,8\n');
    const source = await readCsv(await fileOf('cells.csv'), DEFAULT_CSV, { maxColumns: 10, maxCells: 6 });
    const error = await sourceErrorOf(() => rowsOf(source));
    assert.equal(error.code, 'ingest.column_limit');
    assert.equal(error.row, 4);
    const exact = await readCsv(await fileOf('cells.csv'), DEFAULT_CSV, { maxColumns: 10, maxCells: 8 });
    assert.equal((await rowsOf(exact)).length, 4);
  });

  it('refuses to decode a file that changed after it was opened', async () => {
    const source = await open('moving.csv', 'id\n1\n');
    await appendFile(join(dir, 'moving.csv'), '2\n');
    const error = await sourceErrorOf(() => rowsOf(source));
    assert.equal(error.code, 'ingest.file_changed');
  });

  it('refuses to decode another file of the same size moved into place with the same modification time', async () => {
    const mtime = new Date(Date.UTC(2026, 0, 1));
    await writeFile(join(dir, 'swapped.csv'), 'id\n1\n');
    await utimes(join(dir, 'swapped.csv'), mtime, mtime);
    const source = await readCsv(await fileOf('swapped.csv'), DEFAULT_CSV);
    await writeFile(join(dir, 'next.csv'), 'id\n9\n');
    await utimes(join(dir, 'next.csv'), mtime, mtime);
    await rename(join(dir, 'next.csv'), join(dir, 'swapped.csv'));
    const error = await sourceErrorOf(() => rowsOf(source));
    assert.equal(error.code, 'ingest.file_changed');
  });

  it('refuses a FIFO put in place of the file without waiting for a writer', async () => {
    await writeFile(join(dir, 'fifo.csv'), 'id\n1\n');
    const file = await fileOf('fifo.csv');
    await unlink(file.absolutePath);
    const error = await withWaitingWriter(file.absolutePath, () =>
      sourceErrorOf(() => readCsv(file, DEFAULT_CSV)),
    );
    assert.equal(error.code, 'ingest.file_size_unknown');
  });

  it('refuses rows read while the file was being rewritten', async () => {
    const rows = Array.from({ length: 10_000 }, (_, index) => `${index}\n`).join('');
    const source = await open('rewritten.csv', `id\n${rows}`);
    const error = await sourceErrorOf(async () => {
      let first = true;
      for await (const _batch of source.batches) {
        // The first batch is in: the rest of the read sees the file being written again.
        if (first) await appendFile(join(dir, 'rewritten.csv'), '10000\n');
        first = false;
      }
    });
    assert.equal(error.code, 'ingest.file_changed');
  });
});
