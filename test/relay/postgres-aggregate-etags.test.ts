// An aggregate over a PostgreSQL snapshot, served by two relay processes that loaded the same data at different
// times (workers, replicas): a snapshot has no modification time, so each states its own load time, and the tag
// must still let a client's If-None-Match from one be answered 304 by the other.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, byHouseholdAggregate, peopleApi, peopleSchema, postgresSource } from './postgres-fixture.ts';
import { dataset, usePeopleDatabase } from './postgres-snapshot-fixture.ts';

const DATASETS = `${dataset(
  `      - id: people
        ${postgresSource({ table: 'people' })}${peopleSchema()}`,
  `      - name: people
        table: people
        ${ACCESS}
        ${peopleApi()}`,
)}
${byHouseholdAggregate('registry:rows')}`;

const AGGREGATE = '/v1/datasets/registry/aggregates/by_household';

describe('aggregate ETags over a PostgreSQL snapshot, across processes', () => {
  const database = usePeopleDatabase();
  const relays: PostgresRelay[] = [];
  before(async () => {
    for (const at of ['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z']) {
      relays.push(await startPostgresRelay(DATASETS, database.db.url, { clock: fixedClock(at) }));
    }
  });
  after(async () => {
    for (const relay of relays) await relay.close();
  });

  it('tags the same data alike in both, weakly, and each answers the other tag 304', async () => {
    const [first, second] = relays as [PostgresRelay, PostgresRelay];
    const a = await first.get(AGGREGATE);
    const b = await second.get(AGGREGATE);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(b.statusCode, 200, b.body);
    assert.ok(a.json().observations.length > 0);
    // The bodies state each process's load time: equivalent, not the same bytes.
    assert.notEqual(a.json().freshness.computed_at, b.json().freshness.computed_at);
    assert.deepEqual(a.json().observations, b.json().observations);
    const etag = String(a.headers.etag);
    assert.match(etag, /^W\/"sha256:[0-9a-f]{64}"$/);
    assert.equal(b.headers.etag, etag);
    assert.equal((await second.get(AGGREGATE, { 'if-none-match': etag })).statusCode, 304);
    assert.equal((await first.get(AGGREGATE, { 'if-none-match': String(b.headers.etag) })).statusCode, 304);
    // Another query is another tag.
    const other = await first.get(`${AGGREGATE}?max_rows=1`);
    assert.notEqual(other.headers.etag, etag);
  });
});
