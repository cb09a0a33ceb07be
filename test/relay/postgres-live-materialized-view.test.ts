// A materialized view served live. PostgreSQL keeps no NOT NULL on a materialized view's columns (and refuses
// `ALTER MATERIALIZED VIEW ... SET NOT NULL`), so its key is checked by its unique index and by its rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { ID_AND_LABEL, ITEMS, liveDataset, openLiveTestDatabase } from './postgres-live-fixture.ts';

describe('a materialized view served live', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query('CREATE TABLE source_rows (id integer, label text)');
    await db.query("INSERT INTO source_rows VALUES (1, 'one'), (2, 'two'), (3, 'three'), (NULL, 'none')");
  });
  after(() => db.close());

  it('is served when a unique index covers its key and every row has one', async () => {
    await db.query(
      'CREATE MATERIALIZED VIEW keyed AS SELECT id, label FROM source_rows WHERE id IS NOT NULL',
    );
    await db.query('CREATE UNIQUE INDEX keyed_id ON keyed (id)');
    const relay = await startPostgresRelay(liveDataset('keyed', ID_AND_LABEL), db.url);
    try {
      const first = await relay.get(`${ITEMS}?limit=2`);
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(
        first.json().data.map((row: { id: number }) => row.id),
        [1, 2],
      );
      const next = await relay.get(`${ITEMS}?limit=2&cursor=${first.json().pagination.next_cursor}`);
      assert.deepEqual(next.json().data, [{ id: 3, label: 'three' }]);
      assert.equal((await relay.get(`${ITEMS}/2`)).json().label, 'two');
    } finally {
      await relay.close();
    }
  });

  it('is refused at start, naming the key, when a row has no key (pages would pass over it)', async () => {
    await db.query('CREATE MATERIALIZED VIEW keyless AS SELECT id, label FROM source_rows');
    await db.query('CREATE UNIQUE INDEX keyless_id ON keyless (id)');
    const error = await startupFailure(db.url, liveDataset('keyless', ID_AND_LABEL));
    assert.equal(error.code, 'ingest.live_key_not_unique');
    assert.equal(error.column, 'id');
    assert.match(error.detail, /WHERE "id" IS NOT NULL/);
  });

  it('is refused at start without a unique index on its key', async () => {
    await db.query(
      'CREATE MATERIALIZED VIEW unindexed AS SELECT id, label FROM source_rows WHERE id IS NOT NULL',
    );
    const error = await startupFailure(db.url, liveDataset('unindexed', ID_AND_LABEL));
    assert.equal(error.code, 'ingest.live_key_not_unique');
    // A materialized view takes no PRIMARY KEY or UNIQUE constraint: the detail says what it does take.
    assert.match(error.detail, /CREATE UNIQUE INDEX ON "public"\."unindexed" \("id"\)/);
    assert.doesNotMatch(error.detail, /constraint/i);
  });
});
