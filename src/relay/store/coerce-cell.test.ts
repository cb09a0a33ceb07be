import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coerceCell, parseFilterValue } from './coerce-cell.ts';

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

  it('accepts the boolean spellings case-insensitively', () => {
    for (const text of ['true', 'TRUE', '1', 'yes', 't', 'Y'])
      assert.deepEqual(coerceCell(text, 'boolean', csv), { ok: true, value: true });
    for (const text of ['false', 'False', '0', 'no', 'f', 'N'])
      assert.deepEqual(coerceCell(text, 'boolean', csv), { ok: true, value: false });
    assert.equal(coerceCell('maybe', 'boolean', csv).ok, false);
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
    assert.deepEqual(coerceCell('2024-01-01T10:00:00.123Z', 'timestamp', csv), {
      ok: true,
      value: Date.UTC(2024, 0, 1, 10, 0, 0, 123),
    });
    assert.equal(coerceCell('yesterday', 'timestamp', csv).ok, false);
  });

  it('keeps strings as they are and renders other cells as text', () => {
    assert.deepEqual(coerceCell(' padded ', 'string', csv), { ok: true, value: ' padded ' });
    assert.deepEqual(coerceCell(12, 'string', xlsx), { ok: true, value: '12' });
  });

  it('parseFilterValue rejects empty values', () => {
    assert.equal(parseFilterValue('', 'string').ok, false);
    assert.deepEqual(parseFilterValue('3', 'integer'), { ok: true, value: 3 });
  });
});
