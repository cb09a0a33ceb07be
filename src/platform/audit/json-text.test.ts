import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  isoTimestamp,
  jsonNullableNumber,
  jsonNullableString,
  jsonString,
  jsonStringArray,
} from './json-text.ts';

describe('JSON text pieces', () => {
  it('write strings exactly as JSON.stringify does, whatever they hold', () => {
    const anyString = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', 'a"b\\c\nd'),
    );
    fc.assert(
      fc.property(anyString, (value) => {
        assert.equal(jsonString(value), JSON.stringify(value));
        assert.equal(jsonNullableString(value), JSON.stringify(value));
      }),
    );
    fc.assert(
      fc.property(fc.array(anyString), (values) => {
        assert.equal(jsonStringArray(values), JSON.stringify(values));
      }),
    );
  });

  it('write absent values as null', () => {
    assert.equal(jsonNullableString(null), 'null');
    assert.equal(jsonNullableString(undefined), 'null');
    assert.equal(jsonNullableNumber(undefined), 'null');
    for (const value of [0, -0, 7, 1.5, -3e-9, 1e21, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.equal(jsonNullableNumber(value), JSON.stringify(value));
    }
  });

  it('stamp the ISO time of the millisecond asked, also when asked again or out of order', () => {
    for (const ms of [0, 1795505317321, 1795505317321, 1795505317322, 1795505317321, 253402300799999]) {
      assert.equal(isoTimestamp(ms), new Date(ms).toISOString());
    }
  });
});
