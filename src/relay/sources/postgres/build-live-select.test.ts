import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildKeySelect, buildLiveSelect } from './build-live-select.ts';
import { ROUNDED_INT8 } from './live-comparison.ts';

describe('buildLiveSelect', () => {
  it('pushes every operator down as parameters, in primary-key order, with the limit as a parameter', () => {
    const statement = buildLiveSelect({
      relation: '"public"."people"',
      columns: ['person_id', 'age'],
      primaryKey: 'person_id',
      filters: [
        { column: 'district', type: 'string', op: 'eq', values: ['north'] },
        { column: 'age', type: 'integer', op: 'in', values: [3, 4] },
        { column: 'age', type: 'integer', op: 'gte', values: [1] },
        { column: 'income', type: 'number', op: 'lte', values: [2.5] },
        { column: 'born', type: 'date', op: 'between', values: ['1980-01-01', '1990-12-31'] },
      ],
      columnTypes: new Map([
        ['district', 'text'],
        ['age', 'int4'],
        ['income', 'numeric'],
        ['born', 'date'],
      ]),
      after: 'p010',
      limit: 51,
    });
    assert.equal(
      statement.text,
      'SELECT "person_id", "age" FROM "public"."people" WHERE "district" = $1::pg_catalog.text AND "age" = ANY($2::pg_catalog.int8[]) AND "age" >= $3::pg_catalog.int8 AND "income" <= $4::pg_catalog.numeric AND "born" >= $5::pg_catalog.date AND "born" <= $6::pg_catalog.date AND "person_id" > $7 ORDER BY "person_id" LIMIT $8::pg_catalog.int8',
    );
    assert.deepEqual(statement.values, [
      'north',
      [3, 4],
      1,
      // The greatest numeric that reads as 2.5 (halfway to the next double, which reads as 2.5: it is even).
      '2.5000000000000002220446049250313080847263336181640625',
      '1980-01-01',
      '1990-12-31',
      'p010',
      51,
    ]);
  });

  it('never writes a value into the text, and quotes identifiers (a quote in a name is doubled)', () => {
    const hostile = "x'); DROP TABLE people; --";
    const statement = buildLiveSelect({
      relation: '"public"."people"',
      columns: ['we"ird'],
      primaryKey: 'we"ird',
      filters: [{ column: 'we"ird', type: 'string', op: 'in', values: [hostile] }],
      columnTypes: new Map(),
      after: undefined,
      limit: 2,
    });
    assert.equal(
      statement.text,
      'SELECT "we""ird" FROM "public"."people" WHERE "we""ird" = ANY($1::pg_catalog.text[]) ORDER BY "we""ird" LIMIT $2::pg_catalog.int8',
    );
    assert.ok(!statement.text.includes('DROP'));
    assert.deepEqual(statement.values, [[hostile], 2]);
  });

  it('compares numeric columns as the doubles a snapshot holds: the column itself between the numerics that read as the value, `in` through a cast that never fails', () => {
    const statement = buildLiveSelect({
      relation: '"t"',
      columns: ['id'],
      primaryKey: 'id',
      filters: [
        { column: 'amount', type: 'number', op: 'eq', values: [0.1] },
        { column: 'amount', type: 'number', op: 'in', values: [0.1, 2] },
        { column: 'amount', type: 'number', op: 'between', values: [0.5, 1] },
        { column: 'ratio', type: 'number', op: 'gte', values: [0.5] },
      ],
      columnTypes: new Map([
        ['amount', 'numeric'],
        ['ratio', 'float8'],
      ]),
      limit: 3,
    });
    const overflow = (2n ** 1024n - 2n ** 970n).toString();
    const underflow = `0.${(5n ** 1075n).toString().padStart(1075, '0')}`;
    assert.equal(
      statement.text,
      `SELECT "id" FROM "t" WHERE "amount" >= $1::pg_catalog.numeric AND "amount" <= $2::pg_catalog.numeric AND (CASE WHEN abs("amount") < ${overflow} THEN CASE WHEN abs("amount") > ${underflow} THEN "amount"::float8 ELSE 0::float8 END WHEN "amount" > 0 THEN 'Infinity'::float8 WHEN "amount" < 0 THEN '-Infinity'::float8 END) = ANY($3::pg_catalog.float8[]) AND "amount" >= $4::pg_catalog.numeric AND "amount" <= $5::pg_catalog.numeric AND "ratio" >= $6::pg_catalog.float8 ORDER BY "id" LIMIT $7::pg_catalog.int8`,
    );
    assert.deepEqual(statement.values, [
      '0.099999999999999998612221219218554324470460414886474609375',
      '0.100000000000000012490009027033011079765856266021728515625',
      [0.1, 2],
      '0.4999999999999999722444243843710864894092082977294921875',
      '1.00000000000000011102230246251565404236316680908203125',
      0.5,
      3,
    ]);
  });

  it('compares a bigint served as number as the doubles a snapshot holds, by the bigint itself where it can', () => {
    const statement = buildLiveSelect({
      relation: '"t"',
      columns: ['id'],
      primaryKey: 'id',
      filters: [
        { column: 'big', type: 'number', op: 'eq', values: [42] },
        { column: 'big', type: 'number', op: 'eq', values: [4.5] },
        { column: 'big', type: 'number', op: 'eq', values: [2 ** 53] },
        { column: 'big', type: 'number', op: 'in', values: [1, 2.5] },
        { column: 'big', type: 'number', op: 'in', values: [1, 2 ** 60] },
        { column: 'big', type: 'number', op: 'gte', values: [2 ** 63] },
        { column: 'big', type: 'number', op: 'lte', values: [2 ** 63] },
        { column: 'count', type: 'integer', op: 'in', values: [7, 8] },
      ],
      columnTypes: new Map([
        ['big', 'int8'],
        ['count', 'int8'],
      ]),
      limit: 3,
    });
    assert.equal(
      statement.text,
      'SELECT "id" FROM "t" WHERE "big" = $1::pg_catalog.int8 AND FALSE AND "big" >= $2::pg_catalog.int8 AND "big" <= $3::pg_catalog.int8 AND "big" = ANY($4::pg_catalog.int8[]) AND ("big"::float8) = ANY($5::pg_catalog.float8[]) AND "big" >= $6::pg_catalog.int8 AND "big" IS NOT NULL AND "count" = ANY($7::pg_catalog.int8[]) ORDER BY "id" LIMIT $8::pg_catalog.int8',
    );
    assert.deepEqual(statement.values, [
      42,
      '9007199254740992',
      '9007199254740993',
      [1],
      [1, 2 ** 60],
      '9223372036854775296',
      [7, 8],
      3,
    ]);
  });

  it('sends timestamps (epoch ms in the store) as ISO 8601 UTC text, matching every microsecond of a millisecond', () => {
    const ms = Date.UTC(2024, 0, 2, 3, 4, 5, 6);
    const statement = buildLiveSelect({
      relation: '"t"',
      columns: ['id'],
      primaryKey: 'id',
      filters: [
        { column: 'at', type: 'timestamp', op: 'between', values: [ms, ms + 1000] },
        { column: 'at', type: 'timestamp', op: 'in', values: [ms] },
        { column: 'at', type: 'timestamp', op: 'eq', values: [ms] },
        { column: 'local', type: 'timestamp', op: 'lte', values: [ms] },
      ],
      columnTypes: new Map([
        ['at', 'timestamptz'],
        ['local', 'timestamp'],
      ]),
      limit: 1,
    });
    // A snapshot truncates the database's microseconds: 05.006999 reads as 05.006, so bounds end below 05.007.
    assert.equal(
      statement.text,
      `SELECT "id" FROM "t" WHERE "at" >= $1::pg_catalog.timestamptz AND "at" < $2::pg_catalog.timestamptz AND date_trunc('milliseconds', "at") = ANY($3::pg_catalog.timestamptz[]) AND "at" >= $4::pg_catalog.timestamptz AND "at" < $5::pg_catalog.timestamptz AND "local" < $6::pg_catalog.timestamp ORDER BY "id" LIMIT $7::pg_catalog.int8`,
    );
    assert.deepEqual(statement.values, [
      '2024-01-02T03:04:05.006Z',
      '2024-01-02T03:04:06.007Z',
      ['2024-01-02T03:04:05.006Z'],
      '2024-01-02T03:04:05.006Z',
      '2024-01-02T03:04:05.007Z',
      '2024-01-02T03:04:05.007Z',
      1,
    ]);
    const byKey = buildKeySelect('"t"', ['id', 'at'], { column: 'at', pgType: 'timestamptz' }, ms);
    assert.ok(byKey);
    assert.equal(
      byKey.text,
      'SELECT "id", "at" FROM "t" WHERE "at" >= $1::pg_catalog.timestamptz AND "at" < $2::pg_catalog.timestamptz ORDER BY "at" LIMIT 2',
    );
    assert.deepEqual(byKey.values, ['2024-01-02T03:04:05.006Z', '2024-01-02T03:04:05.007Z']);
  });

  it('turns values no row can match into constant conditions, as the snapshot would compare them', () => {
    const statement = buildLiveSelect({
      relation: '"t"',
      columns: ['id'],
      primaryKey: 'id',
      filters: [
        { column: 'small', type: 'number', op: 'eq', values: [1.5] },
        { column: 'small', type: 'number', op: 'in', values: [40_000, 7] },
        { column: 'small', type: 'number', op: 'gte', values: [-40_000] },
        { column: 'small', type: 'number', op: 'between', values: [1.5, 9.5] },
        { column: 'name', type: 'string', op: 'lte', values: ['b\0c'] },
        { column: 'token', type: 'string', op: 'gte', values: ['a'] },
      ],
      columnTypes: new Map([
        ['small', 'int2'],
        ['name', 'text'],
        ['token', 'uuid'],
      ]),
      limit: 3,
    });
    assert.equal(
      statement.text,
      'SELECT "id" FROM "t" WHERE FALSE AND "small" = ANY($1::pg_catalog.int8[]) AND "small" >= $2::pg_catalog.int8 AND "small" >= $3::pg_catalog.int8 AND "small" <= $4::pg_catalog.int8 AND "name" > $5::pg_catalog.text AND "name" <= $6::pg_catalog.text AND ("token"::text COLLATE "C") >= $7::pg_catalog.text ORDER BY "id" LIMIT $8::pg_catalog.int8',
    );
    // Integer bounds are bigints whatever the column's width (a smallint widened in the database compares as before),
    // so a value beyond the smallint range is sent, and matches nothing there. A text range starts above '' (an
    // empty string is null in a snapshot, and null satisfies no filter).
    assert.deepEqual(statement.values, [[40_000, 7], -40_000, 2, 9, '', 'b', 'a', 3]);
    const none = buildLiveSelect({
      relation: '"t"',
      columns: ['id'],
      primaryKey: 'id',
      filters: [{ column: 'small', type: 'integer', op: 'in', values: [2 ** 63] }],
      columnTypes: new Map([['small', 'int2']]),
      limit: 3,
    });
    assert.equal(none.text, 'SELECT "id" FROM "t" WHERE FALSE ORDER BY "id" LIMIT $1::pg_catalog.int8');
    assert.equal(buildKeySelect('"t"', ['id'], { column: 'id', pgType: 'uuid' }, 'NOT-A-UUID'), undefined);
    assert.equal(buildKeySelect('"t"', ['id'], { column: 'id', pgType: 'int4' }, 1.5), undefined);
  });

  it('reads a record by the key it shows, compared as an `eq` filter compares it', () => {
    const text = buildKeySelect('"t"', ['id', 'label'], { column: 'id', pgType: 'text' }, 'p1');
    assert.deepEqual(text, {
      text: 'SELECT "id", "label" FROM "t" WHERE "id" = $1::pg_catalog.text ORDER BY "id" LIMIT 2',
      values: ['p1'],
    });
    // A numeric key shown as 0.1 is any numeric that reads as that double.
    const numeric = buildKeySelect('"t"', ['id'], { column: 'id', pgType: 'numeric' }, 0.1);
    assert.ok(numeric);
    assert.equal(
      numeric.text,
      'SELECT "id" FROM "t" WHERE "id" >= $1::pg_catalog.numeric AND "id" <= $2::pg_catalog.numeric ORDER BY "id" LIMIT 2',
    );
    // A bigint served as number, beyond 2^53: the bigints that read as the double.
    const rounded = buildKeySelect('"t"', ['id'], { column: 'id', pgType: ROUNDED_INT8 }, 2 ** 53);
    assert.deepEqual(rounded?.values, ['9007199254740992', '9007199254740993']);
  });
});
