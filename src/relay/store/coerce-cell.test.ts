import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runToEnd } from '../../../test/helpers/run-to-end.ts';
import type { FieldType } from '../config/schema.ts';
import {
  coerceCell,
  coerceEpochDay,
  coerceValue,
  Date1904Number,
  excelSerialMs,
  INVALID,
  invalidReason,
  parseFilterValue,
} from './coerce-cell.ts';

const csv = { excelSerials: false };
const xlsx = { excelSerials: true };

describe('coerceCell', () => {
  it('treats empty cells as null for every type', () => {
    for (const type of ['string', 'integer', 'number', 'boolean', 'date', 'timestamp'] as const) {
      assert.deepEqual(coerceCell('', type, csv), { ok: true, value: null });
      assert.deepEqual(coerceCell(null, type, csv), { ok: true, value: null });
    }
  });

  it('parses integers strictly', () => {
    assert.deepEqual(coerceCell(' 42 ', 'integer', csv), { ok: true, value: 42 });
    assert.deepEqual(coerceCell(7n, 'integer', csv), { ok: true, value: 7 });
    assert.equal(coerceCell('4.2', 'integer', csv).ok, false);
    assert.equal(coerceCell('12abc', 'integer', csv).ok, false);
    assert.equal(coerceCell(2n ** 60n, 'integer', csv).ok, false);
    assert.equal(coerceCell(1.5, 'integer', csv).ok, false);
  });

  it('parses numbers and rejects non-finite text', () => {
    assert.deepEqual(coerceCell('-1.25e2', 'number', csv), { ok: true, value: -125 });
    assert.deepEqual(coerceCell('.5', 'number', csv), { ok: true, value: 0.5 });
    assert.equal(coerceCell('NaN', 'number', csv).ok, false);
    assert.equal(coerceCell('1,5', 'number', csv).ok, false);
  });

  it('refuses a long digit run with no valid end in one pass', () => {
    // In a process of its own, stopped after 20 s: the number pattern once backtracked quadratically (about 50 s
    // for this cell, 80 ms for a filter value at the URI limit); one pass takes milliseconds. A guard, not a timing.
    const script = `import { coerceCell } from ${JSON.stringify(new URL('./coerce-cell.ts', import.meta.url).href)};
      const csv = { excelSerials: false };
      const cells = ['1'.repeat(200_000) + 'x', ' ' + '1'.repeat(200_000) + '.5 ', '.' + '1'.repeat(200_000) + 'e'];
      process.stdout.write(JSON.stringify(cells.map((cell) => coerceCell(cell, 'number', csv).ok)));`;
    assert.equal(runToEnd(script), '[false,false,false]');
  });

  it('refuses numbers beyond the double range instead of serving them as null', () => {
    for (const raw of ['1e400', '-1e400', ` ${'9'.repeat(400)} `, 10n ** 400n]) {
      assert.deepEqual(
        coerceCell(raw, 'number', csv),
        { ok: false, reason: 'number outside the double range' },
        String(raw),
      );
    }
    // Below the smallest double is still a number, read as zero.
    assert.deepEqual(coerceCell('1e-400', 'number', csv), { ok: true, value: 0 });
    assert.deepEqual(coerceCell('1.7976931348623157e308', 'number', csv), {
      ok: true,
      value: Number.MAX_VALUE,
    });
    assert.deepEqual(coerceCell(10n ** 300n, 'number', csv), { ok: true, value: 1e300 });
  });

  it('accepts the boolean spellings case-insensitively', () => {
    for (const text of ['true', 'TRUE', '1', 'yes', 't', 'Y'])
      assert.deepEqual(coerceCell(text, 'boolean', csv), { ok: true, value: true });
    for (const text of ['false', 'False', '0', 'no', 'f', 'N'])
      assert.deepEqual(coerceCell(text, 'boolean', csv), { ok: true, value: false });
    assert.equal(coerceCell('maybe', 'boolean', csv).ok, false);
  });

  it('reads dates and timestamps of years 0001 to 0099 as those years, and refuses year 0000 dates', () => {
    for (const text of ['0001-01-01', '0050-02-28', '0099-12-31']) {
      assert.deepEqual(coerceCell(text, 'date', csv), { ok: true, value: text });
      assert.deepEqual(parseFilterValue(text, 'date'), { ok: true, value: text });
      assert.deepEqual(coerceCell(`${text} 10:00:00`, 'timestamp', csv), {
        ok: true,
        value: Date.parse(`${text}T10:00:00Z`),
      });
    }
    assert.equal(coerceCell('0050-02-29', 'date', csv).ok, false, 'year 50 is not a leap year');
    assert.equal(coerceCell('0004-02-29', 'date', csv).ok, true);
    assert.equal(coerceCell('0000-01-01', 'date', csv).ok, false);
    assert.equal(coerceEpochDay(-719_162, 'date', false), '0001-01-01');
    assert.equal(coerceEpochDay(-719_163, 'date', false), INVALID);
    assert.equal(invalidReason(), 'date outside the years 0001 to 9999');
  });

  it('validates calendar dates and converts Excel serials only for XLSX', () => {
    assert.deepEqual(coerceCell('2024-02-29', 'date', csv), { ok: true, value: '2024-02-29' });
    assert.equal(coerceCell('2023-02-29', 'date', csv).ok, false);
    assert.equal(coerceCell('29/02/2024', 'date', csv).ok, false);
    assert.deepEqual(coerceCell(45292, 'date', xlsx), { ok: true, value: '2024-01-01' });
    assert.equal(coerceCell(45292, 'date', csv).ok, false);
    assert.deepEqual(coerceCell(new Date(Date.UTC(2020, 4, 17)), 'date', xlsx), {
      ok: true,
      value: '2020-05-17',
    });
  });

  it('reads timestamps with offsets, and naive ones as UTC', () => {
    assert.deepEqual(coerceCell('2024-01-01T10:00:00Z', 'timestamp', csv), {
      ok: true,
      value: Date.UTC(2024, 0, 1, 10),
    });
    assert.deepEqual(coerceCell('2024-01-01 10:00', 'timestamp', csv), {
      ok: true,
      value: Date.UTC(2024, 0, 1, 10),
    });
    assert.deepEqual(coerceCell('2024-01-01T12:00:00+0200', 'timestamp', csv), {
      ok: true,
      value: Date.UTC(2024, 0, 1, 10),
    });
    // PostgreSQL's text output: a space, microseconds and an hours-only offset.
    assert.deepEqual(coerceCell('2024-01-01 12:00:00.123456+02', 'timestamp', csv), {
      ok: true,
      value: Date.UTC(2024, 0, 1, 10, 0, 0, 123),
    });
    assert.deepEqual(coerceCell('2024-01-01T10:00:00.123Z', 'timestamp', csv), {
      ok: true,
      value: Date.UTC(2024, 0, 1, 10, 0, 0, 123),
    });
    assert.equal(coerceCell('yesterday', 'timestamp', csv).ok, false);
    // Days that the month does not have are refused, not rolled into the next month.
    for (const text of ['2024-02-30T00:00:00Z', '2023-02-29 12:00', '2024-04-31T08:00:00+02', '2024-02-30']) {
      assert.equal(coerceCell(text, 'timestamp', csv).ok, false, text);
      assert.equal(parseFilterValue(text, 'timestamp').ok, false, text);
    }
    assert.equal(coerceCell('2024-02-29T00:00:00Z', 'timestamp', csv).ok, true);
  });

  it('refuses a timestamp cell outside the years 0000 to 9999 (UTC), which has no four-digit year to serve', () => {
    const reason = 'timestamp outside the years 0000 to 9999';
    const beyond: [unknown, { excelSerials: boolean }][] = [
      [new Date(Date.parse('9999-12-31T23:59:59.999Z') + 1), csv],
      [new Date(Date.parse('0000-01-01T00:00:00Z') - 1), csv],
      ['9999-12-31T23:30:00-01:00', csv],
      ['0000-01-01T00:30:00+01:00', csv],
      [2_958_466, xlsx],
      [-700_000, xlsx],
      [new Date1904Number(2_957_004), xlsx],
    ];
    for (const [cell, options] of beyond) {
      assert.deepEqual(coerceCell(cell, 'timestamp', options), { ok: false, reason }, String(cell));
    }
    assert.deepEqual(coerceCell(new Date('9999-12-31T23:59:59.999Z'), 'timestamp', csv), {
      ok: true,
      value: Date.parse('9999-12-31T23:59:59.999Z'),
    });
    assert.deepEqual(coerceCell('0000-01-01T00:00:00Z', 'timestamp', csv), {
      ok: true,
      value: Date.parse('0000-01-01T00:00:00Z'),
    });
    // Filter bounds are not served, and a live table compares them in PostgreSQL's own spelling of such years.
    assert.equal(parseFilterValue('9999-12-31T23:30:00-01:00', 'timestamp').ok, true);
  });

  it('keeps strings as they are and renders other cells as text', () => {
    assert.deepEqual(coerceCell(' padded ', 'string', csv), { ok: true, value: ' padded ' });
    assert.deepEqual(coerceCell(12, 'string', xlsx), { ok: true, value: '12' });
    assert.deepEqual(coerceCell(2.5, 'string', csv), { ok: true, value: '2.5' });
    assert.deepEqual(coerceCell(9n, 'string', csv), { ok: true, value: '9' });
    assert.deepEqual(coerceCell(false, 'string', csv), { ok: true, value: 'false' });
    assert.deepEqual(coerceCell(new Date(Date.UTC(2024, 0, 1, 10)), 'string', csv), {
      ok: true,
      value: '2024-01-01T10:00:00.000Z',
    });
    assert.deepEqual(coerceCell(new Date(Number.NaN), 'string', csv), { ok: false, reason: 'invalid date' });
  });

  it('refuses an XLSX number past 2^53 in a string field, whose text may not be the digits stored', () => {
    const reason = 'number past 2^53 in a string field (its digits may not all be kept): store it as text';
    for (const raw of [
      2 ** 53,
      -(2 ** 53),
      Number('12345678901234567890'),
      1e21,
      new Date1904Number(2 ** 60),
    ]) {
      assert.deepEqual(coerceCell(raw, 'string', xlsx), { ok: false, reason }, String(raw));
    }
    assert.deepEqual(coerceCell(2 ** 53 - 1, 'string', xlsx), { ok: true, value: '9007199254740991' });
    assert.deepEqual(coerceCell(0.1, 'string', xlsx), { ok: true, value: '0.1' });
    // A Parquet double is the value itself, whatever its size.
    assert.deepEqual(coerceCell(1e21, 'string', csv), { ok: true, value: '1e+21' });
  });

  it('refuses lists and objects (Parquet LIST, struct, map, JSON) in a string field instead of String() of them', () => {
    for (const [cell, reason] of [
      [{ street: 'Main', number: 4 }, 'the object is not a string'],
      [['a', 'b'], 'the list is not a string'],
      [[], 'the list is not a string'],
      [[{ key: 'a', value: 1 }], 'the list is not a string'],
      [new Uint8Array([1, 2]), 'the object is not a string'],
    ] as const) {
      assert.deepEqual(coerceCell(cell, 'string', csv), { ok: false, reason }, JSON.stringify(cell));
    }
  });

  it('converts every Excel serial to the nearest millisecond, dates as the day of that instant', () => {
    // 2024-01-01 00:00:02 as Excel stores it, a hair below the second.
    assert.equal(excelSerialMs(45292.000023148146, false), Date.UTC(2024, 0, 1, 0, 0, 2));
    assert.equal(excelSerialMs(43830.000023148146, true), Date.UTC(2024, 0, 1, 0, 0, 2));
    for (let second = 0; second < 86_400; second += 1) {
      const serial = 45292 + second / 86_400;
      assert.deepEqual(coerceCell(serial, 'timestamp', xlsx), {
        ok: true,
        value: Date.UTC(2024, 0, 1, 0, 0, second),
      });
    }
    // Within half a millisecond of midnight the instant is the next day, and so is the date.
    const lastMoment = 45292 + 1 - 1e-9;
    assert.deepEqual(coerceCell(lastMoment, 'timestamp', xlsx), { ok: true, value: Date.UTC(2024, 0, 2) });
    assert.deepEqual(coerceCell(lastMoment, 'date', xlsx), { ok: true, value: '2024-01-02' });
  });

  it('reads serials 1 to 59 as Excel does (1900-01-01 to 1900-02-28) and refuses its 1900-02-29', () => {
    // Excel, as ECMA-376 specifies, counts 1900 as a leap year: serial 60 is a day that never was.
    assert.deepEqual(coerceCell(1, 'date', xlsx), { ok: true, value: '1900-01-01' });
    assert.deepEqual(coerceCell(59, 'date', xlsx), { ok: true, value: '1900-02-28' });
    assert.deepEqual(coerceCell(61, 'date', xlsx), { ok: true, value: '1900-03-01' });
    assert.deepEqual(coerceCell(1.5, 'timestamp', xlsx), { ok: true, value: Date.UTC(1900, 0, 1, 12) });
    assert.equal(excelSerialMs(59.25, false), Date.UTC(1900, 1, 28, 6));
    for (const type of ['date', 'timestamp'] as const) {
      for (const serial of [60, 60.5]) {
        assert.deepEqual(
          coerceCell(serial, type, xlsx),
          { ok: false, reason: 'Excel serial of a day that does not exist' },
          `${type} ${serial}`,
        );
      }
    }
    // The 1904 system has no such day.
    assert.deepEqual(coerceCell(new Date1904Number(60), 'date', xlsx), { ok: true, value: '1904-03-01' });
  });

  it('reads numbers of a 1904 workbook as days since 1904-01-01, and as themselves for other types', () => {
    const cell = (value: number) => new Date1904Number(value);
    assert.deepEqual(coerceCell(cell(43830), 'date', xlsx), { ok: true, value: '2024-01-01' });
    assert.deepEqual(coerceCell(cell(0), 'date', xlsx), { ok: true, value: '1904-01-01' });
    assert.deepEqual(coerceCell(cell(43830.75), 'timestamp', xlsx), {
      ok: true,
      value: Date.UTC(2024, 0, 1, 18),
    });
    assert.deepEqual(coerceCell(cell(43830), 'integer', xlsx), { ok: true, value: 43830 });
    assert.deepEqual(coerceCell(cell(2.5), 'number', xlsx), { ok: true, value: 2.5 });
    assert.deepEqual(coerceCell(cell(1), 'boolean', xlsx), { ok: true, value: true });
    assert.deepEqual(coerceCell(cell(12), 'string', xlsx), { ok: true, value: '12' });
    assert.deepEqual(coerceCell(cell(2.5), 'integer', xlsx), {
      ok: false,
      reason: 'the number is not an integer',
    });
  });

  it('parseFilterValue rejects empty values', () => {
    assert.equal(parseFilterValue('', 'string').ok, false);
    assert.deepEqual(parseFilterValue('3', 'integer'), { ok: true, value: 3 });
    assert.deepEqual(parseFilterValue('x', 'integer'), { ok: false, reason: 'the string is not an integer' });
    assert.deepEqual(parseFilterValue('1e400', 'number'), {
      ok: false,
      reason: 'number outside the double range',
    });
  });

  it('spells Date cells of any day exactly as toISOString does, time of day dropped', () => {
    const day = 86_400_000;
    const samples = [
      Date.UTC(1899, 11, 31, 23, 59, 59, 999),
      Date.UTC(1900, 0, 1),
      Date.UTC(1969, 11, 31, 12),
      0,
      Date.UTC(2024, 1, 29, 6),
      Date.UTC(2099, 11, 31, 23),
      Date.UTC(2100, 0, 1, 1),
      Date.parse('0001-01-01T00:00:00Z'),
      Date.parse('0050-06-01T12:00:00Z'),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (let ms = Date.UTC(1890, 0, 1) + 12_345; ms < Date.UTC(2110, 0, 1); ms += 37 * day + 4_321_000) {
      samples.push(ms);
    }
    for (const ms of samples) {
      const expected = new Date(ms).toISOString().slice(0, 10);
      assert.equal(coerceValue(new Date(ms), 'date', false), expected, String(ms));
      assert.equal(coerceValue(new Date(ms), 'date', false), expected, `${ms} again`);
    }
    assert.deepEqual(coerceCell(new Date(Number.NaN), 'date', csv), { ok: false, reason: 'invalid date' });
    // Beyond 0001 to 9999 a day would need a sign or more digits (and would sort out of order): refused.
    for (const ms of [Date.parse('0001-01-01T00:00:00Z') - 1, Date.UTC(-50, 5, 1), Date.UTC(10_000, 0, 1)]) {
      assert.deepEqual(
        coerceCell(new Date(ms), 'date', csv),
        { ok: false, reason: 'date outside the years 0001 to 9999' },
        String(ms),
      );
    }
    assert.equal(coerceCell(2_958_466, 'date', xlsx).ok, false, 'an Excel serial past 9999-12-31');
    assert.deepEqual(coerceCell(-1, 'date', xlsx), { ok: true, value: '1899-12-29' });
    assert.deepEqual(coerceCell(45292.75, 'date', xlsx), { ok: true, value: '2024-01-01' });
  });
});

describe('coerceValue', () => {
  it('returns the value itself, or INVALID with the reason kept aside', () => {
    assert.equal(coerceValue(' 42 ', 'integer', false), 42);
    assert.equal(coerceValue('', 'integer', false), null);
    assert.equal(coerceValue(undefined, 'date', false), null);
    assert.equal(coerceValue('n', 'boolean', false), false);
    assert.equal(coerceValue(1.5, 'integer', false), INVALID);
    assert.equal(invalidReason(), 'the number is not an integer');
    assert.equal(coerceValue(Number.POSITIVE_INFINITY, 'number', false), INVALID);
    assert.equal(invalidReason(), 'not a finite number');
    assert.equal(coerceValue('2023-02-29', 'date', false), INVALID);
    assert.equal(invalidReason(), 'the string is not a date (YYYY-MM-DD)');
  });

  it('gives reasons that name the kind of value, never the value itself', () => {
    const refused: [unknown, FieldType, string][] = [
      ['PIN-4711', 'integer', 'the string is not an integer'],
      [47.11, 'integer', 'the number is not an integer'],
      [['PIN', 4711], 'integer', 'the list is not an integer'],
      ['PIN-4711', 'number', 'the string is not a number'],
      [{ pin: 4711 }, 'number', 'the object is not a number'],
      ['PIN-4711', 'boolean', 'the string is not a boolean'],
      [4711, 'boolean', 'the number is not a boolean'],
      ['PIN-4711', 'date', 'the string is not a date (YYYY-MM-DD)'],
      [4711n, 'date', 'the big integer is not a date (YYYY-MM-DD)'],
      ['PIN-4711', 'timestamp', 'the string is not an ISO 8601 timestamp'],
      [true, 'timestamp', 'the boolean is not an ISO 8601 timestamp'],
      [{ pin: 4711 }, 'string', 'the object is not a string'],
      [['PIN', 4711], 'string', 'the list is not a string'],
    ];
    for (const [cell, type, reason] of refused) {
      assert.equal(coerceValue(cell, type, false), INVALID, `${type} ${String(cell)}`);
      assert.equal(invalidReason(), reason);
      assert.doesNotMatch(invalidReason(), /4711|PIN/);
    }
  });

  it('agrees with coerceCell on every type', () => {
    const cells = [
      '',
      ' 7 ',
      '7.5',
      'yes',
      '2024-01-02',
      '2024-01-02T03:04:05Z',
      7,
      7.5,
      true,
      9n,
      new Date(0),
    ];
    for (const type of ['string', 'integer', 'number', 'boolean', 'date', 'timestamp'] as const) {
      for (const cell of cells) {
        const value = coerceValue(cell, type, false);
        const expected = value === INVALID ? { ok: false, reason: invalidReason() } : { ok: true, value };
        assert.deepEqual(coerceCell(cell, type, csv), expected, `${type} ${String(cell)}`);
      }
    }
  });

  it('coerceEpochDay gives what coerceValue gives the Date of that day', () => {
    const days = [
      -100_000_001, -100_000_000, -25_568, -1, 0, 1, 19_723, 47_482, 100_000_000, 100_000_001, 0.5,
    ];
    const cells: unknown[] = [...days, null, undefined, ''];
    for (const type of ['string', 'integer', 'number', 'boolean', 'date', 'timestamp'] as const) {
      for (const cell of cells) {
        const date = typeof cell === 'number' ? new Date(cell * 86_400_000) : cell;
        const label = `${type} ${String(cell)}`;
        let expected: unknown;
        try {
          const value = coerceValue(date, type, false);
          expected = value === INVALID ? { reason: invalidReason() } : { value };
        } catch (error) {
          assert.throws(() => coerceEpochDay(cell, type, false), { name: (error as Error).name }, label);
          continue;
        }
        const value = coerceEpochDay(cell, type, false);
        assert.deepEqual(value === INVALID ? { reason: invalidReason() } : { value }, expected, label);
      }
    }
    assert.equal(coerceEpochDay(19_723, 'date', false), '2024-01-01');
  });
});
