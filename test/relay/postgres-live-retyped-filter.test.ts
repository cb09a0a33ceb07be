// A filtered column whose type changes in the database while the relay serves it live: the reads must never compare
// in the new type under the old assumptions (an integer column turned text compares as text: '9' >= '10'), and
// must follow a change to a type the field may still be served from.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { capturedLog } from '../helpers/captured-log.ts';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { startPostgresRelay } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ITEMS, liveDataset, openLiveTestDatabase } from './postgres-live-fixture.ts';

const FIELDS = '{ name: id, type: integer }, { name: age, type: integer }';
const FILTERS = '{ field: age, ops: [eq, in, gte, lte, between] }';

describe('live PostgreSQL tables: a filtered column retyped under the relay', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
  });
  after(() => db.close());

  for (const [name, extra] of [
    ['prepared', ''],
    ['unprepared', 'live_prepared_statements: false'],
  ] as const) {
    it(`${name}: turned text, no read answers rows compared as text; turned back, reads recover`, async () => {
      const table = `aged_${name}`;
      await db.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, age integer NOT NULL)`);
      await db.query(`INSERT INTO ${table} VALUES (1, 9), (2, 10), (3, 100)`);
      const log = capturedLog('warn');
      const relay = await startPostgresRelay(liveDataset(table, FIELDS, extra, FILTERS), db.url, {
        logger: log.logger,
      });
      const ids = async (query: string) => {
        const response = await relay.get(`${ITEMS}?${query}&fields=id`);
        assert.equal(response.statusCode, 200, response.body);
        return response.json().data.map((row: { id: number }) => row.id);
      };
      try {
        // Every connection of the pool prepares the statements first (when preparing).
        for (let round = 0; round < 3; round++) {
          assert.deepEqual(await ids('age.gte=10'), [2, 3]);
          assert.deepEqual(await ids('age.lte=10'), [1, 2]);
        }
        await db.query(`ALTER TABLE ${table} ALTER COLUMN age TYPE text`);
        // Statements prepared before, and shapes never read before (a fresh statement), alike.
        for (const query of ['age.gte=10', 'age.lte=10', 'age.between=10,100', 'age.in=9,100', 'age=9']) {
          const response = await relay.get(`${ITEMS}?${query}&fields=id`);
          assertProblem(response, 502, 'datasource.query_failed');
          assert.ok(!/text|integer|age|aged/.test(String(response.json().detail)), response.body);
        }
        // The operator is told why, once: not once per failing read.
        const unfit = log
          .records()
          .filter((record) => /no longer fits its declared schema/.test(String(record.msg)));
        assert.equal(unfit.length, 1, log.lines.join(''));
        assert.equal(unfit[0]?.column, 'age');
        assert.match(String(unfit[0]?.detail), /text/);
        await db.query(`ALTER TABLE ${table} ALTER COLUMN age TYPE integer USING age::integer`);
        assert.deepEqual(await ids('age.gte=10'), [2, 3]);
        assert.deepEqual(await ids('age.between=10,100'), [2, 3]);
      } finally {
        await relay.close();
      }
    });

    it(`${name}: widened to bigint, filters go on comparing as integers`, async () => {
      const table = `widened_${name}`;
      await db.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, age integer NOT NULL)`);
      await db.query(`INSERT INTO ${table} VALUES (1, 9), (2, 10), (3, 100)`);
      const relay = await startPostgresRelay(liveDataset(table, FIELDS, extra, FILTERS), db.url);
      try {
        const read = async () => (await relay.get(`${ITEMS}?age.gte=10&fields=id`)).json().data;
        assert.deepEqual(await read(), [{ id: 2 }, { id: 3 }]);
        await db.query(`ALTER TABLE ${table} ALTER COLUMN age TYPE bigint`);
        await db.query(`INSERT INTO ${table} VALUES (4, 3000000000)`);
        assert.deepEqual(await read(), [{ id: 2 }, { id: 3 }, { id: 4 }]);
        const beyond = await relay.get(`${ITEMS}?age.gte=2999999999&fields=id`);
        assert.equal(beyond.statusCode, 200, beyond.body);
        assert.deepEqual(beyond.json().data, [{ id: 4 }]);
      } finally {
        await relay.close();
      }
    });
  }
});
