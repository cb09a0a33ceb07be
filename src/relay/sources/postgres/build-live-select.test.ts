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
      after: 'p010',
      limit: 51,
    });
    assert.equal(
      statement.text,
      'SELECT "person_id", "age" FROM "public"."people" WHERE "district" = $1 AND "age" = ANY($2) AND "age" >= $3 AND "income" <= $4 AND "born" BETWEEN $5 AND $6 AND "person_id" > $7 ORDER BY "person_id" LIMIT $8',
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
      limit: 1,
    });
    assert.deepEqual(statement.values, [
      '2024-01-02T03:04:05.006Z',
      '2024-01-02T03:04:06.006Z',
      ['2024-01-02T03:04:05.006Z'],
      1,
    ]);
    const byKey = buildKeySelect('"t"', ['id', 'at'], { column: 'at', type: 'timestamp' }, ms);
    assert.equal(byKey.text, 'SELECT "id", "at" FROM "t" WHERE "at" = $1 LIMIT 1');
    assert.deepEqual(byKey.values, ['2024-01-02T03:04:05.006Z']);
  });
});
