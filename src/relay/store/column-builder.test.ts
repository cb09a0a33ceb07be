import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldType, TableFieldConfig } from '../config/schema.ts';
import { cellJson } from './column.ts';
import { createColumnBuilder } from './column-builder.ts';

const field = (type: FieldType, extra: Partial<TableFieldConfig> = {}): TableFieldConfig => ({
  name: 'f',
  type,
  nullable: true,
  sensitive: false,
  ...extra,
});
const plain = { primaryKey: false, excelSerials: false };

describe('createColumnBuilder', () => {
  it('grows across appends and keeps every value in order', () => {
    const builder = createColumnBuilder(field('integer'), plain);
    const expected: (number | null)[] = [];
    for (let batch = 0; batch < 7; batch++) {
      const cells = Array.from({ length: 900 }, (_, i) => (i % 10 === 0 ? '' : String(batch * 900 + i)));
      assert.equal(builder.append(cells, cells.length), -1);
      for (const cell of cells) expected.push(cell === '' ? null : Number(cell));
    }
    assert.equal(builder.length, 6300);
    const column = builder.finish(undefined);
    assert.equal(column.kind, 'numeric');
    assert.deepEqual(
      expected.map((_, row) => cellJson(column, row)),
      expected,
    );
  });

  it('appends only the first `count` cells and permutes on finish', () => {
    const builder = createColumnBuilder(field('string'), plain);
    assert.equal(builder.append(['c', 'a', null, 'ignored'], 3), -1);
    assert.deepEqual(builder.keys(), ['c', 'a', null]);
    const column = builder.finish(Int32Array.from([1, 0, 2]));
    assert.deepEqual(column, { kind: 'text', type: 'string', values: ['a', 'c', null] });
  });

  it('stops at the first refused cell and says why', () => {
    const builder = createColumnBuilder(field('boolean'), plain);
    assert.equal(builder.append(['yes', 'no', 'maybe', 'yes'], 4), 2);
    assert.equal(builder.length, 2);
    assert.deepEqual(builder.problem(), {
      code: 'ingest.type_mismatch',
      detail: 'the string is not a boolean',
    });
    const required = createColumnBuilder(field('date', { nullable: false }), plain);
    assert.equal(required.append(['2024-01-01', ''], 2), 1);
    assert.deepEqual(required.problem(), {
      code: 'ingest.null_value',
      detail: 'empty value in a non-nullable field',
    });
    const key = createColumnBuilder(field('string'), { primaryKey: true, excelSerials: false });
    assert.equal(key.append([null], 1), 0);
    assert.equal(key.problem().detail, 'primary key is empty');
    const secret = createColumnBuilder(field('number', { sensitive: true }), plain);
    assert.equal(secret.append(['1', 'PIN-1234'], 2), 1);
    assert.equal(secret.problem().detail, 'the string is not a number');
  });

  it('treats typed arrays exactly like arrays of the same numbers', () => {
    const sources: [FieldType, ArrayLike<number>][] = [
      ['integer', Int32Array.from([3, -4, 2_000_000_000])],
      ['integer', Uint8Array.from([0, 255])],
      ['number', Int16Array.from([-7, 7])],
      ['integer', Float64Array.from([1, -0, 2 ** 53 - 1])],
      ['number', Float32Array.from([0.5, -1e30])],
      ['integer', Float64Array.from([1, 2.5, 3])],
      ['integer', Float64Array.from([2 ** 53])],
      ['number', Float64Array.from([1, Number.NaN])],
      ['number', Float64Array.from([Number.NEGATIVE_INFINITY])],
      ['timestamp', Float64Array.from([0])],
      ['timestamp', Int32Array.from([0])],
    ];
    for (const [type, typed] of sources) {
      const fromTyped = createColumnBuilder(field(type), plain);
      const fromArray = createColumnBuilder(field(type), plain);
      const atTyped = fromTyped.append(typed, typed.length);
      const atArray = fromArray.append(Array.from(typed), typed.length);
      const label = `${type} ${typed.constructor.name} ${String(Array.from(typed))}`;
      assert.equal(atTyped, atArray, label);
      if (atArray >= 0) assert.deepEqual(fromTyped.problem(), fromArray.problem(), label);
      else assert.deepEqual(fromTyped.finish(undefined), fromArray.finish(undefined), label);
    }
  });
});

describe('text columns', () => {
  it('keep their order across appends, also after the keys were read', () => {
    const builder = createColumnBuilder(field('string'), { primaryKey: true, excelSerials: false });
    assert.equal(builder.append(['b', 'c'], 2), -1);
    assert.deepEqual(Array.from(builder.keys()), ['b', 'c']);
    assert.equal(builder.append(['a'], 1), -1);
    assert.deepEqual(Array.from(builder.keys()), ['b', 'c', 'a']);
    assert.equal(builder.append(['d', '', 'e'], 3), 1);
    assert.equal(builder.length, 4);
    assert.deepEqual(builder.finish(undefined), {
      kind: 'text',
      type: 'string',
      values: ['b', 'c', 'a', 'd'],
    });
  });

  it('join thousands of appends in order', () => {
    const builder = createColumnBuilder(field('date'), plain);
    const expected: (string | null)[] = [];
    for (let i = 0; i < 2500; i++) {
      const cell = i % 7 === 0 ? '' : new Date(Date.UTC(2000, 0, 1 + i));
      assert.equal(builder.append([cell], 1), -1);
      expected.push(cell === '' ? null : cell.toISOString().slice(0, 10));
    }
    assert.deepEqual(builder.finish(undefined), { kind: 'text', type: 'date', values: expected });
  });
});
