import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldType } from '../config/schema.ts';
import type { FieldPath } from './aggregate-model.ts';
import { checkFilter, type Scalar } from './parse-aggregate-filters.ts';

/** A filter on a field of `type` (only the field's type and sensitivity are read). */
const filter = (type: FieldType, values: Scalar[]) => ({
  name: 'amount',
  path: { path: 'amount', field: { type, sensitive: false } } as unknown as FieldPath,
  op: 'gte' as const,
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
});
