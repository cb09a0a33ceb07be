// A value a snapshot load refuses (NaN or ±Infinity in a `number` column, an infinite date or timestamp) still
// compares in the database: NaN sorts above every number there, so `NaN >= 5` holds, and `infinity` is after every
// date. A live read whose filter reaches such a row answers 502 datasource.row_invalid naming the filtered field,
// whether or not `fields` serves it, as it does when the field is served: the row's other fields are never served
// as matching a filter that no snapshot of the table would have run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ITEMS, liveDataset, openLiveTestDatabase } from './postgres-live-fixture.ts';

const ALL_OPS = '[eq, in, gte, lte, between]';

/** The ids `query` answers, or the problem it answers with (`502 datasource.row_invalid score`). */
async function answer(relay: PostgresRelay, query: string): Promise<string> {
  const response = await relay.get(`${ITEMS}?${query}`);
  const body = response.json();
  if (response.statusCode !== 200) {
    const field = /`(\w+)`/.exec(body.detail ?? '')?.[1];
    return `${response.statusCode} ${body.code} ${field}`;
  }
  return body.data.map((row: { label: string }) => row.label).join(',');
}

describe('live reads filtering on a value a snapshot refuses', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
  });
  after(() => db.close());

  it('NaN and ±Infinity in a float8 or numeric column answer row_invalid when a filter reaches them', async () => {
    await db.query(
      'CREATE TABLE measures (id integer PRIMARY KEY, score float8, amount numeric, label text)',
    );
    await db.query(`INSERT INTO measures VALUES (1, 1, 1, 'a'), (2, 2, 2, 'b'), (3, 10, 10, 'c')`);
    const relay = await startPostgresRelay(
      liveDataset(
        'measures',
        '{ name: id, type: integer }, { name: score, type: number }, { name: amount, type: number }, { name: label, type: string }',
        '',
        `{ field: score, ops: ${ALL_OPS} }, { field: amount, ops: ${ALL_OPS} }`,
      ),
      db.url,
    );
    const refused = (field: string) => `502 datasource.row_invalid ${field}`;
    try {
      for (const column of ['score', 'amount']) {
        const other = column === 'score' ? 'amount' : 'score';
        for (const value of ['NaN', 'Infinity', '-Infinity']) {
          const at = `${column} = ${value}`;
          await db.query(`UPDATE measures SET ${column} = '${value}' WHERE id = 2`);
          // Ranges the database answers with the row: refused, whatever `fields` serves.
          const range = value === '-Infinity' ? `${column}.lte=5` : `${column}.gte=5`;
          for (const fields of ['', '&fields=label', '&fields=id,label', `&fields=${other}`]) {
            assert.equal(
              await answer(relay, `${range}${fields}`),
              refused(column),
              `${at}: ${range}${fields}`,
            );
          }
          // Filters that never reach the row serve the others, with or without the column.
          assert.equal(await answer(relay, `${column}.between=0,100&fields=label`), 'a,c', at);
          assert.equal(await answer(relay, `${column}=2&fields=label`), '', at);
          assert.equal(await answer(relay, `${column}.in=1,2,10&fields=label`), 'a,c', at);
          // A filter on another column reads this one only when it is served, as an unfiltered read does.
          assert.equal(await answer(relay, `${other}.gte=2&fields=label`), 'b,c', at);
          assert.equal(await answer(relay, `${other}.gte=2`), refused(column), at);
          // The record read by key: refused when it reads the column, served when `fields` leaves it out.
          assertProblem(
            await relay.get(`${ITEMS}/2`),
            502,
            'datasource.row_invalid',
            new RegExp(`\`${column}\``),
          );
          assert.deepEqual((await relay.get(`${ITEMS}/2?fields=label`)).json(), { label: 'b' }, at);
          await db.query(`UPDATE measures SET ${column} = 2 WHERE id = 2`);
        }
      }
      // A numeric beyond the double range reads as infinite, as a snapshot reads it.
      await db.query('UPDATE measures SET amount = 1e400 WHERE id = 2');
      assert.equal(await answer(relay, 'amount.gte=5&fields=label'), refused('amount'));
      assert.equal(await answer(relay, 'amount.between=0,100&fields=label'), 'a,c');
      // Two filters: each one's column is checked.
      assert.equal(await answer(relay, 'score.gte=0&amount.gte=0&fields=label'), refused('amount'));
    } finally {
      await relay.close();
    }
  });

  it('infinite dates and timestamps answer row_invalid when a filter reaches them', async () => {
    await db.query('CREATE TABLE events (id integer PRIMARY KEY, day date, at timestamptz, label text)');
    await db.query(`INSERT INTO events VALUES (1, '2024-01-01', '2024-01-01T00:00:00Z', 'a'),
      (2, 'infinity', 'infinity', 'b'), (3, '-infinity', '-infinity', 'c'), (4, '2024-06-01', '2024-06-01T00:00:00Z', 'd')`);
    const relay = await startPostgresRelay(
      liveDataset(
        'events',
        '{ name: id, type: integer }, { name: day, type: date }, { name: at, type: timestamp }, { name: label, type: string }',
        '',
        `{ field: day, ops: ${ALL_OPS} }, { field: at, ops: ${ALL_OPS} }`,
      ),
      db.url,
    );
    try {
      for (const [field, low, high] of [
        ['day', '2024-03-01', '2024-12-31'],
        ['at', '2024-03-01T00:00:00Z', '2024-12-31T00:00:00Z'],
      ] as const) {
        for (const fields of [`&fields=label,${field}`, '&fields=label']) {
          for (const query of [`${field}.gte=${low}`, `${field}.lte=${low}`]) {
            assert.equal(
              await answer(relay, `${query}${fields}`),
              `502 datasource.row_invalid ${field}`,
              query,
            );
          }
        }
        assert.equal(await answer(relay, `${field}.between=${low},${high}&fields=label`), 'd', field);
        assert.equal(await answer(relay, `${field}=${low}&fields=label`), '', field);
      }
    } finally {
      await relay.close();
    }
  });

  it('a float key of NaN or Infinity answers row_invalid when a page reaches it, whatever `fields` serves', async () => {
    await db.query('CREATE TABLE float_keys (id float8 PRIMARY KEY, label text)');
    await db.query(`INSERT INTO float_keys VALUES (1, 'a'), (2, 'b'), ('Infinity', 'c'), ('NaN', 'd')`);
    const relay = await startPostgresRelay(
      liveDataset(
        'float_keys',
        '{ name: id, type: number }, { name: label, type: string }',
        '',
        '{ field: id, ops: [gte] }',
      ),
      db.url,
    );
    try {
      for (const query of ['id.gte=1.5', 'id.gte=1.5&fields=label', 'fields=label']) {
        assert.equal(await answer(relay, query), '502 datasource.row_invalid id', query);
      }
      assert.equal(await answer(relay, 'limit=2&fields=label'), 'a,b');
      assert.deepEqual((await relay.get(`${ITEMS}/2?fields=label`)).json(), { label: 'b' });
    } finally {
      await relay.close();
    }
  });
});
