// Batches and coalesced single evaluations over a relay entity served live from PostgreSQL: a record that does not
// fit the relay's declared schema fails its own subject only, as its single evaluation does, never its neighbours
// in the same `.in` read.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, READER_KEY, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { aliveByAttributeClaim, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';
import { postgresSource } from '../relay/postgres-fixture.ts';

const BATCH = '/v1/batch-evaluations';
const IDS = Array.from({ length: 24 }, (_, index) => `P-${String(index + 1).padStart(2, '0')}`);
/** Its `deceased` is NULL in a field the relay declares non-nullable: every read reaching it answers 502. */
const BROKEN = 'P-07';
/** Asked for, held by no row. */
const ABSENT = 'P-99';

const DATASET = `  - id: registry
    title: Registry
    tables:
      - id: persons
        ${postgresSource({ table: 'persons' })}
        materialization: live
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: national_id, type: string }
            - { name: deceased, type: boolean, nullable: false }
    entities:
      - name: persons
        table: persons
        access: { metadata_scope: "registry:metadata", read_scope: "registry:rows" }
        api: { allowed_filters: [{ field: national_id, ops: [eq, in] }] }`;

const CLAIM = aliveByAttributeClaim({
  id: 'alive_in_live_table',
  title: 'Person is alive',
  dataset: 'registry',
  input: 'target.identifiers.national_id',
  field: 'national_id',
});

const target = (value: string) => ({ type: 'person', identifiers: [{ scheme: 'national_id', value }] });

describe('bulk reads of a live PostgreSQL table holding a row that does not fit its schema', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  let batching: TestVerifier;
  let coalescing: TestVerifier;

  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE persons (id integer PRIMARY KEY, national_id text, deceased boolean)');
    for (const [index, id] of IDS.entries()) {
      await db.query('INSERT INTO persons VALUES ($1, $2, $3)', [
        index + 1,
        id,
        id === BROKEN ? null : index % 2 === 0,
      ]);
    }
    relay = await startPostgresRelay(DATASET, db.url);
    await relay.relay.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(relay.relay.app.server.address() as AddressInfo).port}`;
    const options = { relays: { civil: url }, bulk: true, env: { RELAY_CIVIL_TOKEN: READER_KEY } };
    batching = await startTestVerifier({ ...options, edit: (text) => `${text}${CLAIM}` });
    coalescing = await startTestVerifier({
      ...options,
      edit: (text) =>
        `${text.replace('bulk_mode: rda_in_filter\n', 'bulk_mode: rda_in_filter\n      coalesce_reads: true\n')}${CLAIM}`,
    });
  });
  after(async () => {
    await Promise.all([batching, coalescing].map((verifier) => verifier?.close()));
    await relay?.close();
    await db?.close();
  });

  /** What a single evaluation of this subject answers, alone: its status and its problem code. */
  const alone = async (value: string) => {
    const response = await batching.evaluate({ target: target(value), claims: ['alive_in_live_table'] });
    const body = JSON.parse(response.body) as { code?: string; results?: { satisfied: boolean }[] };
    return response.statusCode === 200 ? ['succeeded', body.results?.[0]?.satisfied] : ['failed', body.code];
  };

  it('answers every item of a batch as its single evaluation answers it', async () => {
    const values = [...IDS, ABSENT];
    const response = await batching.post(BATCH, {
      items: values.map((value) => ({ target: target(value) })),
      claims: ['alive_in_live_table'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as {
      items: { status: string; claim_results: { satisfied: boolean }[]; errors: { code: string }[] }[];
    };
    const batched = body.items.map((item) =>
      item.status === 'succeeded'
        ? ['succeeded', item.claim_results[0]?.satisfied]
        : ['failed', item.errors[0]?.code],
    );
    const singles = [];
    for (const value of values) singles.push(await alone(value));
    assert.deepEqual(batched, singles);
    // The broken record fails its own subject only; the absent one is not found.
    assert.deepEqual(singles[IDS.indexOf(BROKEN)], ['failed', 'source.unavailable']);
    assert.deepEqual(singles.at(-1), ['failed', 'evidence.not_available']);
    assert.equal(batched.filter(([status]) => status === 'succeeded').length, IDS.length - 1);
  });

  it('answers concurrent single evaluations read together as each alone', async () => {
    const responses = await Promise.all(
      IDS.map((value) => coalescing.evaluate({ target: target(value), claims: ['alive_in_live_table'] })),
    );
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      IDS.map((value) => (value === BROKEN ? 503 : 200)),
    );
  });
});
