import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldType } from '../config/schema.ts';
import type { FieldPath } from './aggregate-model.ts';
import { checkFilter, type Scalar } from './parse-aggregate-filters.ts';

/** A filter on a field of `type` (only the field's type and sensitivity are read). */
const filter = (type: FieldType, values: Scalar[], op: 'eq' | 'in' | 'gte' | 'between' = 'gte') => ({
  name: 'amount',
  path: { path: 'amount', field: { type, sensitive: false } } as unknown as FieldPath,
  op,
  values,
});

const refused = (error: unknown) => (error as { code?: string }).code === 'filter.invalid_value';

describe('checkFilter', () => {
  it('takes JSON numbers and text of a number field alike', () => {
    assert.deepEqual(checkFilter(filter('number', [2.5])).values, [2.5]);
    assert.deepEqual(checkFilter(filter('number', ['2.5'])).values, [2.5]);
  });

  it('refuses numbers beyond the double range, as JSON (parsed as Infinity) or as text', () => {
    for (const value of [JSON.parse('1e400'), JSON.parse('-1e400'), '1e400']) {
      assert.throws(() => checkFilter(filter('number', [value])), refused, String(value));
    }
    assert.throws(() => checkFilter(filter('integer', [JSON.parse('1e400')])), refused);
  });

  it('refuses a nonzero number that reads as 0, and reads lower-case timestamps as upper-case ones', () => {
    for (const value of ['1e-400', '-2e-324']) {
      assert.throws(() => checkFilter(filter('number', [value])), refused, value);
    }
    assert.deepEqual(checkFilter(filter('number', ['0e-400'])).values, [0]);
    assert.deepEqual(checkFilter(filter('timestamp', ['2024-01-02t03:04:05z'])).values, [
      Date.UTC(2024, 0, 2, 3, 4, 5),
    ]);
  });

  it('checks a between range in the order filters compare by (code points), as entity filters do', () => {
    // U+FF1D is below U+1F600 by code point, though its UTF-16 unit is above the surrogate's.
    assert.deepEqual(checkFilter(filter('string', ['\uFF1D', '\u{1F600}'], 'between')).values, [
      '\uFF1D',
      '\u{1F600}',
    ]);
    assert.throws(
      () => checkFilter(filter('string', ['\u{1F600}', '\uFF1D'], 'between')),
      (error: unknown) => (error as { code?: string }).code === 'filter.invalid_range',
    );
  });

  it('reads a string of blanks as no value, as the query string does, for every operator', () => {
    for (const op of ['eq', 'gte', 'in'] as const) {
      for (const blank of ['', '  ', '\t']) {
        assert.throws(
          () => checkFilter(filter('string', [blank], op)),
          refused,
          `${op} ${JSON.stringify(blank)}`,
        );
      }
    }
    assert.deepEqual(checkFilter(filter('string', ['paid', ' '], 'in')).values, ['paid']);
    assert.throws(
      () => checkFilter(filter('string', [' ', 'z'], 'between')),
      (error: unknown) => (error as { code?: string }).code === 'filter.invalid_range',
    );
    // Padded text is a value, taken as sent.
    assert.deepEqual(checkFilter(filter('string', [' paid '], 'eq')).values, [' paid ']);
  });
});
