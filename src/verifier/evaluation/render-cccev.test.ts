import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isXsdDate, literal } from './render-cccev.ts';

describe('CCCEV value literals', () => {
  it('type safe integers as xsd:integer and every other number as xsd:double', () => {
    for (const value of [0, -3, 42, Number.MAX_SAFE_INTEGER])
      assert.deepEqual(literal(value, 'number'), { '@value': value, '@type': 'xsd:integer' });
    for (const value of [0.5, -1.25, 1e21, 2 ** 53, 1e-7])
      assert.deepEqual(literal(value, 'number'), { '@value': value, '@type': 'xsd:double' });
  });

  it('type a date claim value xsd:date only when it is a calendar date, else xsd:string', () => {
    assert.deepEqual(literal('2024-02-29', 'date'), { '@value': '2024-02-29', '@type': 'xsd:date' });
    assert.deepEqual(literal('2024-02-29', 'string'), { '@value': '2024-02-29', '@type': 'xsd:string' });
    for (const text of ['2023-02-29', '2020-13-01', '2020-01-02T10:00:00Z', '2020-1-02'])
      assert.deepEqual(literal(text, 'date'), { '@value': text, '@type': 'xsd:string' }, text);
  });

  it('read the XSD date lexical form: time zones, long and negative years', () => {
    for (const text of ['2020-01-02Z', '2020-01-02+14:00', '-0044-03-15', '12020-12-31', '2000-02-29'])
      assert.ok(isXsdDate(text), text);
    for (const text of ['1900-02-29', '2020-01-02+15:00', '02020-01-01', '2020-04-31', '2020-01-00'])
      assert.ok(!isXsdDate(text), text);
  });

  it('carry objects and lists as JSON literals', () => {
    assert.deepEqual(literal({ a: 1 }, 'object'), { '@value': { a: 1 }, '@type': '@json' });
    assert.deepEqual(literal([1, 'x'], 'any'), { '@value': [1, 'x'], '@type': '@json' });
  });
});
