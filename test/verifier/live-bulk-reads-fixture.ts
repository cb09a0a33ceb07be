// A relay entity served live from a PostgreSQL `persons (id, national_id, deceased)` table, read by a verifier in
// batches (`bulk_mode: rda_in_filter`) and by one coalescing single reads: the answers of both are compared with
// each subject's single evaluation.
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, READER_KEY, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { aliveByAttributeClaim, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';
import { postgresSource } from '../relay/postgres-fixture.ts';

export const BATCH = '/v1/batch-evaluations';

/** An item's or an evaluation's outcome: `succeeded` with whether the claim holds, or `failed` with its code. */
export type Answer = [string, unknown];

export const target = (value: string) => ({
  type: 'person',
  identifiers: [{ scheme: 'national_id', value }],
});

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

export interface LiveBulkReads {
  readonly batching: TestVerifier;
  readonly coalescing: TestVerifier;
  /** A single evaluation of `value` by the batching verifier, alone. */
  alone(value: string): Promise<Answer>;
  /** A batch of `values` by the batching verifier, its items' answers in order (asserted 200). */
  batch(values: readonly string[]): Promise<Answer[]>;
}

/**
 * Started before the suite's tests, closed after. `claimId` names the claim looking persons up by `national_id`;
 * `fill` creates and fills `persons` (the relay declares `deceased` non-nullable).
 */
export function useLiveBulkReads(claimId: string, fill: (db: TestDatabase) => Promise<void>): LiveBulkReads {
  const claim = aliveByAttributeClaim({
    id: claimId,
    title: 'Person is alive',
    dataset: 'registry',
    input: 'target.identifiers.national_id',
    field: 'national_id',
  });
  let db: TestDatabase | undefined;
  let relay: PostgresRelay | undefined;
  const started: { batching?: TestVerifier; coalescing?: TestVerifier } = {};
  before(async () => {
    db = await openTestDatabase();
    await fill(db);
    relay = await startPostgresRelay(DATASET, db.url);
    await relay.relay.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(relay.relay.app.server.address() as AddressInfo).port}`;
    const options = { relays: { civil: url }, bulk: true, env: { RELAY_CIVIL_TOKEN: READER_KEY } };
    started.batching = await startTestVerifier({ ...options, edit: (text) => `${text}${claim}` });
    started.coalescing = await startTestVerifier({
      ...options,
      edit: (text) =>
        `${text.replace('bulk_mode: rda_in_filter\n', 'bulk_mode: rda_in_filter\n      coalesce_reads: true\n')}${claim}`,
    });
  });
  after(async () => {
    await Promise.all([started.batching, started.coalescing].map((verifier) => verifier?.close()));
    await relay?.close();
    await db?.close();
  });
  const batching = () => started.batching as TestVerifier;
  return {
    get batching() {
      return batching();
    },
    get coalescing() {
      return started.coalescing as TestVerifier;
    },
    async alone(value) {
      const response = await batching().evaluate({ target: target(value), claims: [claimId] });
      return answerOf(response.statusCode, response.body);
    },
    async batch(values) {
      const response = await batching().post(BATCH, {
        items: values.map((value) => ({ target: target(value) })),
        claims: [claimId],
      });
      if (response.statusCode !== 200)
        throw new Error(`batch answered ${response.statusCode}: ${response.body}`);
      const body = JSON.parse(response.body) as {
        items: { status: string; claim_results: { satisfied: boolean }[]; errors: { code: string }[] }[];
      };
      return body.items.map(
        (item): Answer =>
          item.status === 'succeeded'
            ? ['succeeded', item.claim_results[0]?.satisfied]
            : ['failed', item.errors[0]?.code],
      );
    },
  };
}

/** An evaluation's answer as an `Answer`. */
export function answerOf(status: number, body: string): Answer {
  const parsed = JSON.parse(body) as { code?: string; results?: { satisfied: boolean }[] };
  return status === 200 ? ['succeeded', parsed.results?.[0]?.satisfied] : ['failed', parsed.code];
}
