// Batches and coalesced single evaluations over a live PostgreSQL table whose lookup values differ only by case,
// Unicode normalization, leading zeros or surrounding spaces, or hold quotes and backslashes: every subject gets
// what its single evaluation gets, never the record of a value next to it in the same `.in` read.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, READER_KEY, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { aliveByAttributeClaim, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';
import { postgresSource } from '../relay/postgres-fixture.ts';

const BATCH = '/v1/batch-evaluations';
/** Held, each with whether the person is deceased: one alive, the next not, so a borrowed record shows. */
const HELD = [
  'ab-1',
  'AB-1',
  'Jos\u00e9',
  'Ame\u0301lie',
  '007',
  'a"b',
  'c\\d',
  'x\\,y',
  "o'k",
  'S\u00f8ren',
];
/** Asked besides: other spellings of a value held, and values no row holds. */
const OTHERS = [
  'Ab-1',
  'Jose\u0301',
  'Am\u00e9lie',
  '7',
  '07',
  ' 007',
  '007 ',
  'a\\"b',
  'c\\\\d',
  'Soren',
  '"a"',
];

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
  id: 'alive_by_spelling',
  title: 'Person is alive',
  dataset: 'registry',
  input: 'target.identifiers.national_id',
  field: 'national_id',
});

const target = (value: string) => ({ type: 'person', identifiers: [{ scheme: 'national_id', value }] });
type Answer = [string, unknown];

describe('bulk reads of lookup values that differ only in spelling', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  let batching: TestVerifier;
  let coalescing: TestVerifier;

  before(async () => {
    db = await openTestDatabase();
    await db.query(
      'CREATE TABLE persons (id integer PRIMARY KEY, national_id text, deceased boolean NOT NULL)',
    );
    for (const [index, id] of HELD.entries())
      await db.query('INSERT INTO persons VALUES ($1, $2, $3)', [index + 1, id, index % 2 === 1]);
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

  const answerOf = (status: number, body: string): Answer => {
    const parsed = JSON.parse(body) as { code?: string; results?: { satisfied: boolean }[] };
    return status === 200 ? ['succeeded', parsed.results?.[0]?.satisfied] : ['failed', parsed.code];
  };
  const evaluate = async (verifier: TestVerifier, value: string): Promise<Answer> => {
    const response = await verifier.evaluate({ target: target(value), claims: ['alive_by_spelling'] });
    return answerOf(response.statusCode, response.body);
  };
  const values = [...HELD, ...OTHERS, ...HELD];

  it('answers every item of a batch, a subject listed twice included, as its single evaluation', async () => {
    const response = await batching.post(BATCH, {
      items: values.map((value) => ({ target: target(value) })),
      claims: ['alive_by_spelling'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as {
      items: { status: string; claim_results: { satisfied: boolean }[]; errors: { code: string }[] }[];
    };
    const batched = body.items.map(
      (item): Answer =>
        item.status === 'succeeded'
          ? ['succeeded', item.claim_results[0]?.satisfied]
          : ['failed', item.errors[0]?.code],
    );
    const singles: Answer[] = [];
    for (const value of values) singles.push(await evaluate(batching, value));
    assert.deepEqual(batched, singles);
    // Each value held is found as itself: alive or not as its own row says.
    assert.deepEqual(
      singles.slice(0, HELD.length),
      HELD.map((_, index): Answer => ['succeeded', index % 2 === 0]),
    );
  });

  it('answers concurrent single evaluations read together as each alone', async () => {
    const together = await Promise.all(values.map((value) => evaluate(coalescing, value)));
    const singles: Answer[] = [];
    for (const value of values) singles.push(await evaluate(batching, value));
    assert.deepEqual(together, singles);
  });
});
