// A partitioned table served live: its pages are cut by the key, so the key needs a unique index of its own, which
// PostgreSQL builds on a partitioned table only when the table is partitioned by that key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { ID_AND_LABEL, ITEMS, liveDataset, openLiveTestDatabase } from './postgres-live-fixture.ts';

describe('a partitioned table served live', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
  });
  after(() => db.close());

  it('is served, a page running across partitions, when it is partitioned by its key', async () => {
    await db.query('CREATE TABLE by_key (id integer PRIMARY KEY, label text) PARTITION BY RANGE (id)');
    await db.query('CREATE TABLE by_key_low PARTITION OF by_key FOR VALUES FROM (0) TO (2)');
    await db.query('CREATE TABLE by_key_high PARTITION OF by_key FOR VALUES FROM (2) TO (10)');
    await db.query("INSERT INTO by_key VALUES (1, 'one'), (2, 'two'), (3, 'three')");
    const relay = await startPostgresRelay(liveDataset('by_key', ID_AND_LABEL), db.url);
    try {
      const first = await relay.get(`${ITEMS}?limit=2`);
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(
        first.json().data.map((row: { id: number }) => row.id),
        [1, 2],
      );
      const next = await relay.get(`${ITEMS}?limit=2&cursor=${first.json().pagination.next_cursor}`);
      assert.deepEqual(next.json().data, [{ id: 3, label: 'three' }]);
    } finally {
      await relay.close();
    }
  });

  it('is refused at start, saying why no index can help, when it is partitioned by another column', async () => {
    await db.query(
      'CREATE TABLE by_day (id integer NOT NULL, label text NOT NULL, PRIMARY KEY (id, label)) PARTITION BY LIST (label)',
    );
    await db.query("CREATE TABLE by_day_one PARTITION OF by_day FOR VALUES IN ('one')");
    const error = await startupFailure(db.url, liveDataset('by_day', ID_AND_LABEL));
    assert.equal(error.code, 'ingest.live_key_not_unique');
    assert.equal(error.column, 'id');
    // A unique index on the key alone cannot be created there: the detail names what can be done instead.
    assert.match(error.detail, /partitioned/);
    assert.match(error.detail, /snapshot/);
  });
});
