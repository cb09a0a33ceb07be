import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exactParam, lowerBound, upperBound } from './live-comparison.ts';

describe('live comparisons', () => {
  it('an integer column holds only integers of its width: others equal nothing and bound by rounding inwards', () => {
    assert.equal(exactParam(7, 'int2'), 7);
    assert.equal(exactParam(7.5, 'int4'), undefined);
    assert.equal(exactParam(32_768, 'int2'), undefined);
    assert.equal(exactParam(-32_768, 'int2'), -32_768);
    assert.equal(exactParam(2 ** 63, 'int8'), undefined);
    assert.deepEqual(lowerBound(1.5, 'int4'), { param: 2, strict: false });
    assert.deepEqual(upperBound(1.5, 'int4'), { param: 1, strict: false });
    assert.equal(lowerBound(2 ** 31, 'int4'), 'none');
    assert.equal(lowerBound(-(2 ** 40), 'int4'), 'all');
    assert.equal(upperBound(2 ** 40, 'int4'), 'all');
    assert.equal(upperBound(2 ** 31 - 1, 'int4'), 'all');
    assert.equal(upperBound(-(2 ** 31) - 0.5, 'int4'), 'none');
    assert.equal(upperBound(2 ** 63, 'int8'), 'all');
    // Other numeric types take any finite number as it is.
    assert.equal(exactParam(0.1, 'float8'), 0.1);
    assert.deepEqual(lowerBound(1e300, 'numeric'), { param: 1e300, strict: false });
  });

  it('a uuid equals only its canonical lower-case text', () => {
    const uuid = '6f1c1c2e-1d5c-4d55-9a4e-6f6b3c1f0a01';
    assert.equal(exactParam(uuid, 'uuid'), uuid);
    assert.equal(exactParam(uuid.toUpperCase(), 'uuid'), undefined);
    assert.equal(exactParam(`{${uuid}}`, 'uuid'), undefined);
    assert.equal(exactParam(uuid.replaceAll('-', ''), 'uuid'), undefined);
    assert.equal(exactParam('nope', 'uuid'), undefined);
  });

  it('text with NUL, which the database cannot hold, equals nothing and bounds as the text before it', () => {
    assert.equal(exactParam('a\0b', 'text'), undefined);
    assert.equal(exactParam('ab', 'varchar'), 'ab');
    assert.deepEqual(lowerBound('ab\0c', 'text'), { param: 'ab', strict: true });
    assert.deepEqual(upperBound('ab\0c', 'text'), { param: 'ab', strict: false });
    assert.deepEqual(lowerBound('ab', 'text'), { param: 'ab', strict: false });
  });

  it('years outside 1..9999 are written as PostgreSQL reads them (ISO year 0 is 1 BC)', () => {
    assert.equal(exactParam(Date.UTC(2024, 0, 2, 3, 4, 5, 6), 'timestamptz'), '2024-01-02T03:04:05.006Z');
    const yearZero = Date.parse('0000-03-01T10:00:00Z');
    assert.equal(exactParam(yearZero, 'timestamptz'), '0001-03-01T10:00:00.000Z BC');
    const yearMinusOne = Date.parse('0000-01-01T00:30:00+01:00');
    assert.equal(exactParam(yearMinusOne, 'timestamp'), '0002-12-31T23:30:00.000Z BC');
    const year10000 = Date.parse('9999-12-31T23:00:00-02:00');
    assert.equal(exactParam(year10000, 'timestamptz'), '10000-01-01T01:00:00.000Z');
    assert.equal(exactParam('1999-06-01', 'date'), '1999-06-01');
  });
});
