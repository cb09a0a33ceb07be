// Batches and coalesced single evaluations over a relay entity served live from PostgreSQL: a record that does not
// fit the relay's declared schema fails its own subject only, as its single evaluation does, never its neighbours
// in the same `.in` read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { target, useLiveBulkReads } from './live-bulk-reads-fixture.ts';

const IDS = Array.from({ length: 24 }, (_, index) => `P-${String(index + 1).padStart(2, '0')}`);
/** Its `deceased` is NULL in a field the relay declares non-nullable: every read reaching it answers 502. */
const BROKEN = 'P-07';
/** Asked for, held by no row. */
const ABSENT = 'P-99';

describe('bulk reads of a live PostgreSQL table holding a row that does not fit its schema', () => {
  const reads = useLiveBulkReads('alive_in_live_table', async (db) => {
    await db.query('CREATE TABLE persons (id integer PRIMARY KEY, national_id text, deceased boolean)');
    for (const [index, id] of IDS.entries()) {
      await db.query('INSERT INTO persons VALUES ($1, $2, $3)', [
        index + 1,
        id,
        id === BROKEN ? null : index % 2 === 0,
      ]);
    }
  });

  it('answers every item of a batch as its single evaluation answers it', async () => {
    const values = [...IDS, ABSENT];
    const batched = await reads.batch(values);
    const singles = [];
    for (const value of values) singles.push(await reads.alone(value));
    assert.deepEqual(batched, singles);
    // The broken record fails its own subject only; the absent one is not found.
    assert.deepEqual(singles[IDS.indexOf(BROKEN)], ['failed', 'source.unavailable']);
    assert.deepEqual(singles.at(-1), ['failed', 'evidence.not_available']);
    assert.equal(batched.filter(([status]) => status === 'succeeded').length, IDS.length - 1);
  });

  it('answers concurrent single evaluations read together as each alone', async () => {
    const responses = await Promise.all(
      IDS.map((value) =>
        reads.coalescing.evaluate({ target: target(value), claims: ['alive_in_live_table'] }),
      ),
    );
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      IDS.map((value) => (value === BROKEN ? 503 : 200)),
    );
  });
});
