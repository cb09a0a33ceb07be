import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CopyBatchBuilder, plainEpochDay, plainNumber, unescapeText } from './parse-copy-text.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('COPY text decoding', () => {
  it('splits rows into typed column batches, NULL as \\N, dates as epoch days', () => {
    const builder = new CopyBatchBuilder(['string', 'integer', 'number', 'date', 'boolean', 'timestamp'], 4);
    builder.addRow(bytes('p1\t42\t12.50\t2024-02-29\tt\t2024-01-02 03:04:05.123456+00\n'));
    builder.addRow(bytes('\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n'));
    builder.addRow(bytes('Ωmega\t-7\t-0.001\t1970-01-01\tf\t2024-01-02 03:04:05\n'));
    const batch = builder.take();
    assert.equal(batch.rowCount, 3);
    assert.deepEqual(batch.epochDays, [false, false, false, true, false, false]);
    assert.deepEqual(batch.columns, [
      ['p1', null, 'Ωmega'],
      [42, null, -7],
      [12.5, null, -0.001],
      [Date.UTC(2024, 1, 29) / 86_400_000, null, 0],
      [true, null, false],
      ['2024-01-02 03:04:05.123456+00', null, '2024-01-02 03:04:05'],
    ]);
    assert.equal(builder.rowCount, 0, 'take starts a fresh batch');
  });

  it('hands anything unusual on as text, for the store to coerce or refuse as it would a CSV cell', () => {
    const builder = new CopyBatchBuilder(['integer', 'integer', 'number', 'number', 'date', 'boolean'], 2);
    builder.addRow(bytes('12.00\t9007199254740993\tNaN\t1e+20\t2024-02-30\tyes\n'));
    assert.deepEqual(
      builder.take().columns.map((cells) => cells[0]),
      ['12.00', '9007199254740993', 'NaN', '1e+20', '2024-02-30', 'yes'],
    );
  });

  it('decodes backslash escapes in text fields (tab, newline, backslash, octal, hex)', () => {
    const builder = new CopyBatchBuilder(['string', 'string'], 1);
    builder.addRow(bytes('a\\tb\\nc\\\\d\t\\101\\x42\\r\n'));
    assert.deepEqual(
      builder.take().columns.map((cells) => cells[0]),
      ['a\tb\nc\\d', 'AB\r'],
    );
    assert.equal(unescapeText(bytes('\\303\\251'), 0, 8), 'é');
  });

  it('decodes a large escaped text cell within memory about its own size', () => {
    // A 32 MiB cell holding one escape, in a process whose heap could not hold a value per byte of it: a text
    // cell may be hundreds of MiB, and decoding it must not end the process.
    const script = `
      const { unescapeText } = await import(${JSON.stringify(new URL('./parse-copy-text.ts', import.meta.url).href)});
      const cell = Buffer.alloc(32 * 1024 * 1024, 97);
      cell.write('\\\\n', 0);
      const text = unescapeText(cell, 0, cell.length);
      process.stdout.write(String(text.length) + ' ' + JSON.stringify(text.slice(0, 2)));`;
    const child = spawnSync(
      process.execPath,
      ['--max-old-space-size=96', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr.slice(0, 500));
    assert.equal(child.stdout, `${32 * 1024 * 1024 - 1} "\\na"`);
  });

  it('refuses a row with the wrong number of fields', () => {
    const builder = new CopyBatchBuilder(['string', 'string'], 2);
    assert.throws(() => builder.addRow(bytes('only-one\n')), /1 fields, expected 2/);
    assert.throws(() => builder.addRow(bytes('a\tb\tc\n')), /more than 2 fields/);
  });

  it('reads plain numbers exactly as Number() does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(10 ** 14), max: 10 ** 14 }),
        fc.integer({ min: 0, max: 8 }),
        (units, scale) => {
          const text = scale === 0 ? String(units) : (units / 10 ** scale).toFixed(scale);
          // At most 15 significant digits: always read, never left to the slow path.
          assert.equal(plainNumber(bytes(text), 0, text.length), Number(text), text);
        },
      ),
    );
    for (const text of ['', '-', '1.', '1.2.3', '1e5', '0x10', 'Infinity', '1234567890123456']) {
      assert.equal(plainNumber(bytes(text), 0, text.length), undefined, text);
    }
    assert.equal(plainNumber(bytes('12.5'), 0, 4, true), undefined, 'integer fields take digits only');
  });

  it('reads calendar dates as the day numbers Date gives, and refuses impossible ones', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('0001-01-01T00:00:00Z'), max: Date.UTC(9999, 11, 31) }),
        (ms) => {
          const text = new Date(ms).toISOString().slice(0, 10);
          assert.equal(plainEpochDay(bytes(text), 0, 10), Math.floor(ms / 86_400_000), text);
        },
      ),
    );
    for (const text of ['2023-02-29', '2024-13-01', '2024-00-10', '2024-04-31', '0000-01-01', '2024-1-01 ']) {
      assert.equal(plainEpochDay(bytes(text), 0, text.length), undefined, text);
    }
    // Years 1 to 99 are plain years, as in timestamps (not 1900 onwards, as Date.UTC would take them).
    assert.equal(plainEpochDay(bytes('0001-01-01'), 0, 10), -719_162);
    assert.equal(plainEpochDay(bytes('0099-12-31'), 0, 10), Date.parse('0099-12-31T00:00:00Z') / 86_400_000);
    assert.equal(plainEpochDay(bytes('2000-02-29'), 0, 10), Date.UTC(2000, 1, 29) / 86_400_000);
  });
});
