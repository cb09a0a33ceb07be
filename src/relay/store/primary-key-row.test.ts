import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Column } from './column.ts';
import { primaryKeyRow } from './primary-key-row.ts';

const numeric = (keys: number[]): Column => ({
  kind: 'numeric',
  type: 'integer',
  values: Float64Array.from(keys),
  nulls: new Uint8Array(keys.length),
});
const text = (keys: string[]): Column => ({ kind: 'text', type: 'string', values: keys });

describe('primaryKeyRow', () => {
  it('finds every numeric key and rejects absent ones', () => {
    const keys = Array.from({ length: 1001 }, (_, i) => i * 3 - 1500);
    const column = numeric(keys);
    keys.forEach((key, row) => {
      assert.equal(primaryKeyRow(column, keys.length, key), row);
    });
    for (const absent of [-1501, -1499, 1, 1502, 1e9, -Infinity, Infinity, Number.NaN, 0.5]) {
      assert.equal(primaryKeyRow(column, keys.length, absent), undefined, String(absent));
    }
    assert.equal(primaryKeyRow(numeric([-5, 0, 7]), 3, -0), 1);
  });

  it('finds every string key in code-unit order and rejects absent ones', () => {
    const keys = ['', 'A', 'B10', 'B2', 'a', 'é', 'z', '😀'].sort();
    const column = text(keys);
    keys.forEach((key, row) => {
      assert.equal(primaryKeyRow(column, keys.length, key), row);
    });
    for (const absent of ['B1', 'b', 'A ', 'zz', '\u0000']) {
      assert.equal(primaryKeyRow(column, keys.length, absent), undefined, absent);
    }
  });

  it('finds keys beyond U+FFFF among keys in U+E000–U+FFFF (rows are in code-point order)', () => {
    // Code-point order, as a snapshot stores them: U+FFFF before U+1F600, the reverse of UTF-16 order.
    const keys = ['a', '\uE000', '\uFFFF', '\u{10000}', '😀', '😀x'];
    const column = text(keys);
    keys.forEach((key, row) => {
      assert.equal(primaryKeyRow(column, keys.length, key), row, JSON.stringify(key));
    });
    for (const absent of ['\uFFFE', '😁', '\u{10001}', 'b']) {
      assert.equal(primaryKeyRow(column, keys.length, absent), undefined, JSON.stringify(absent));
    }
  });

  it('never matches a key of another type', () => {
    assert.equal(primaryKeyRow(numeric([1, 2, 3]), 3, '2'), undefined);
    assert.equal(primaryKeyRow(text(['1', '2']), 2, 2), undefined);
    assert.equal(primaryKeyRow(numeric([0, 1]), 2, true), undefined);
  });

  it('searches boolean keys and only the first rowCount rows', () => {
    const flags: Column = { kind: 'boolean', type: 'boolean', values: Uint8Array.from([0, 1]) };
    assert.equal(primaryKeyRow(flags, 2, false), 0);
    assert.equal(primaryKeyRow(flags, 2, true), 1);
    assert.equal(primaryKeyRow(flags, 1, true), undefined);
    assert.equal(primaryKeyRow(numeric([]), 0, 1), undefined);
  });
});
