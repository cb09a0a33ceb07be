import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildKeySelect, buildLiveSelect } from './build-live-select.ts';

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
      'SELECT "person_id", "age" FROM "public"."people" WHERE "district" = $1 AND "age" = ANY($2) AND "age" >= $3 AND ("income"::float8) <= $4 AND "born" >= $5 AND "born" <= $6 AND "person_id" > $7 ORDER BY "person_id" LIMIT $8',
    );
    assert.deepEqual(statement.values, ['north', [3, 4], 1, 2.5, '1980-01-01', '1990-12-31', 'p010', 51]);
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
      'SELECT "we""ird" FROM "public"."people" WHERE "we""ird" = ANY($1) ORDER BY "we""ird" LIMIT $2',
    );
    assert.ok(!statement.text.includes('DROP'));
    assert.deepEqual(statement.values, [[hostile], 2]);
  });

  it('compares numeric columns as the doubles a snapshot holds, for every operator', () => {
    const statement = buildLiveSelect({
      relation: '"t"',
      columns: ['id'],
      primaryKey: 'id',
      filters: [
        { column: 'amount', type: 'number', op: 'eq', values: [0.1] },
        { column: 'amount', type: 'number', op: 'in', values: [0.1, 2] },
        { column: 'amount', type: 'number', op: 'between', values: [0, 1] },
        { column: 'ratio', type: 'number', op: 'gte', values: [0.5] },
      ],
      columnTypes: new Map([
        ['amount', 'numeric'],
        ['ratio', 'float8'],
      ]),
      limit: 3,
    });
    assert.equal(
      statement.text,
      'SELECT "id" FROM "t" WHERE ("amount"::float8) = $1 AND ("amount"::float8) = ANY($2) AND ("amount"::float8) >= $3 AND ("amount"::float8) <= $4 AND "ratio" >= $5 ORDER BY "id" LIMIT $6',
    );
  });

  it('sends timestamps (epoch ms in the store) as ISO 8601 UTC text', () => {
    const ms = Date.UTC(2024, 0, 2, 3, 4, 5, 6);
    const statement = buildLiveSelect({
      relation: '"t"',
      columns: ['id'],
      primaryKey: 'id',
      filters: [
        { column: 'at', type: 'timestamp', op: 'between', values: [ms, ms + 1000] },
        { column: 'at', type: 'timestamp', op: 'in', values: [ms] },
      ],
      columnTypes: new Map([['at', 'timestamptz']]),
      limit: 1,
    });
    assert.deepEqual(statement.values, [
      '2024-01-02T03:04:05.006Z',
      '2024-01-02T03:04:06.006Z',
      ['2024-01-02T03:04:05.006Z'],
      1,
    ]);
    const byKey = buildKeySelect('"t"', ['id', 'at'], { column: 'at', pgType: 'timestamptz' }, ms);
    assert.ok(byKey);
    assert.equal(byKey.text, 'SELECT "id", "at" FROM "t" WHERE "at" = $1 LIMIT 1');
    assert.deepEqual(byKey.values, ['2024-01-02T03:04:05.006Z']);
  });

  it('turns values the column cannot hold into constant conditions, as the snapshot would compare them', () => {
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
      'SELECT "id" FROM "t" WHERE FALSE AND "small" = ANY($1) AND "small" IS NOT NULL AND "small" >= $2 AND "small" <= $3 AND "name" > $4 AND "name" <= $5 AND ("token"::text COLLATE "C") >= $6 ORDER BY "id" LIMIT $7',
    );
    // A text range starts above '' (an empty string is null in a snapshot, and null satisfies no filter).
    assert.deepEqual(statement.values, [[7], 2, 9, '', 'b', 'a', 3]);
    const none = buildLiveSelect({
      relation: '"t"',
      columns: ['id'],
      primaryKey: 'id',
      filters: [{ column: 'small', type: 'integer', op: 'in', values: [40_000] }],
      columnTypes: new Map([['small', 'int2']]),
      limit: 3,
    });
    assert.equal(none.text, 'SELECT "id" FROM "t" WHERE FALSE ORDER BY "id" LIMIT $1');
    assert.equal(buildKeySelect('"t"', ['id'], { column: 'id', pgType: 'uuid' }, 'NOT-A-UUID'), undefined);
  });
});
