import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  comparedType,
  equalRange,
  exactParam,
  inAsDoubles,
  lowerBound,
  ROUNDED_INT8,
  upperBound,
} from './live-comparison.ts';

/** `mantissa` × 10^-`scale` as exact decimal text: 2^-1075 is `decimal(5n ** 1075n, 1075)`. */
function decimal(mantissa: bigint, scale: number): string {
  const digits = mantissa.toString().padStart(scale + 1, '0');
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

describe('live comparisons', () => {
  it('integer columns hold only integers: others equal nothing and bound by rounding inwards, within bigint', () => {
    assert.equal(exactParam(7, 'int2'), 7);
    assert.equal(exactParam(7.5, 'int4'), undefined);
    // Bounds are bigints whatever the column's width (parameters are cast to bigint): a column widened in the
    // database while served compares as before, and a value beyond a narrow column's range simply matches nothing.
    assert.equal(exactParam(32_768, 'int2'), 32_768);
    assert.equal(exactParam(-32_768, 'int2'), -32_768);
    assert.equal(exactParam(2 ** 63, 'int8'), undefined);
    assert.equal(exactParam(2 ** 63, 'int2'), undefined);
    assert.deepEqual(lowerBound(1.5, 'int4'), { param: 2, strict: false });
    assert.deepEqual(upperBound(1.5, 'int4'), { param: 1, strict: false });
    assert.deepEqual(lowerBound(2 ** 31, 'int4'), { param: 2 ** 31, strict: false });
    assert.equal(lowerBound(2 ** 63, 'int4'), 'none');
    assert.equal(lowerBound(-(2 ** 64), 'int4'), 'all');
    assert.equal(upperBound(2 ** 64, 'int4'), 'all');
    assert.deepEqual(upperBound(-(2 ** 31) - 0.5, 'int4'), { param: -(2 ** 31) - 1, strict: false });
    assert.equal(upperBound(-(2 ** 64), 'int4'), 'none');
    assert.equal(upperBound(2 ** 63, 'int8'), 'all');
    // A double column takes any finite number as it is.
    assert.equal(exactParam(0.1, 'float8'), 0.1);
    assert.deepEqual(lowerBound(1e300, 'float8'), { param: 1e300, strict: false });
  });

  it('a numeric column is bounded by the exact halfway points to the neighbouring doubles, which read as the even one', () => {
    // 0.1 has an even significand: the numerics halfway to its neighbours read as 0.1, and are included.
    assert.deepEqual(equalRange(0.1, 'numeric'), {
      lower: { param: '0.099999999999999998612221219218554324470460414886474609375', strict: false },
      upper: { param: '0.100000000000000012490009027033011079765856266021728515625', strict: false },
    });
    assert.equal(Number('0.099999999999999998612221219218554324470460414886474609375'), 0.1);
    // 1 + 2^-52 has an odd one: both halfway points read as its neighbours, and are left out.
    const odd = 1 + 2 ** -52;
    assert.deepEqual(lowerBound(odd, 'numeric'), {
      param: '1.00000000000000011102230246251565404236316680908203125',
      strict: true,
    });
    assert.equal(Number('1.00000000000000011102230246251565404236316680908203125'), 1);
    assert.deepEqual(upperBound(odd, 'numeric'), {
      param: '1.00000000000000033306690738754696212708950042724609375',
      strict: true,
    });
    // Beyond the largest double a numeric reads as infinite: from halfway to 2^1024 on, which no bound includes.
    assert.deepEqual(upperBound(Number.MAX_VALUE, 'numeric'), {
      param: (2n ** 1024n - 2n ** 970n).toString(),
      strict: true,
    });
    // Zero is read from every numeric within 2^-1075 of it (1e-400 reads as 0).
    const zero = equalRange(0, 'numeric') as { lower: { param: string }; upper: { param: string } };
    assert.equal(zero.upper.param, decimal(5n ** 1075n, 1075));
    assert.equal(zero.lower.param, `-${decimal(5n ** 1075n, 1075)}`);
    assert.deepEqual(equalRange(-0, 'numeric'), zero);
    // Other columns take `exactParam`.
    assert.equal(equalRange(0.1, 'float8'), undefined);
  });

  it('a bigint served as number compares as the doubles a snapshot reads: below 2^53 exactly, beyond by rounding', () => {
    assert.equal(comparedType('int8', 'number'), ROUNDED_INT8);
    assert.equal(comparedType('int8', 'integer'), 'int8');
    assert.equal(comparedType('int4', 'number'), 'int4');
    assert.deepEqual(equalRange(42, ROUNDED_INT8), {
      lower: { param: 42, strict: false },
      upper: { param: 42, strict: false },
    });
    assert.equal(equalRange(4.5, ROUNDED_INT8), 'none');
    assert.equal(exactParam(4.5, ROUNDED_INT8), undefined);
    // 2^53 + 1 reads as 2^53 (a tie, to the even significand); 2^53 + 3 as 2^53 + 4.
    assert.deepEqual(equalRange(2 ** 53, ROUNDED_INT8), {
      lower: { param: '9007199254740992', strict: false },
      upper: { param: '9007199254740993', strict: false },
    });
    assert.deepEqual(equalRange(2 ** 53 + 4, ROUNDED_INT8), {
      lower: { param: '9007199254740995', strict: false },
      upper: { param: '9007199254740997', strict: false },
    });
    // The largest bigint reads as 2^63, which every bigint from 2^63 - 512 on reads as.
    assert.deepEqual(lowerBound(2 ** 63, ROUNDED_INT8), { param: '9223372036854775296', strict: false });
    assert.equal(upperBound(2 ** 63, ROUNDED_INT8), 'all');
    assert.equal(lowerBound(2 ** 64, ROUNDED_INT8), 'none');
    assert.equal(upperBound(-(2 ** 64), ROUNDED_INT8), 'none');
    assert.equal(lowerBound(-(2 ** 63), ROUNDED_INT8), 'all');
    assert.deepEqual(lowerBound(-1.5, ROUNDED_INT8), { param: -1, strict: false });
    assert.deepEqual(upperBound(-0.5, ROUNDED_INT8), { param: -1, strict: false });
    // `in` compares as doubles once a value is beyond 2^53.
    assert.equal(inAsDoubles([1, 2], ROUNDED_INT8), false);
    assert.equal(inAsDoubles([1, 2 ** 53], ROUNDED_INT8), true);
    assert.equal(inAsDoubles([1, 2], 'numeric'), true);
    assert.equal(inAsDoubles([1, 2 ** 60], 'int8'), false);
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
