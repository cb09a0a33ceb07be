// Shared by the batch-evaluation tests: two pairs of real demo relays (one pair allowing `.in` on the lookup
// fields), the verifiers over them (bulk, plain, bulk against refusing relays, coalescing) and the demo subjects.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';
import { type Row, readDemoData } from '../relay/read-demo-data.ts';

export const BATCH = '/v1/batch-evaluations';

/** The demo relays with `.in` allowed on the verifier's lookup fields (and no equality-only required filter). */
const civilAllowsIn = (text: string) =>
  text
    .replace('          required_filters: [person_id, national_id]\n', '')
    .replace('- { field: national_id, ops: [eq] }', '- { field: national_id, ops: [eq, in] }');
const socialAllowsIn = (text: string) =>
  text.replace(
    '- { field: head_of_household_person_id, ops: [eq] }',
    '- { field: head_of_household_person_id, ops: [eq, in] }',
  );

async function listen(relay: TestRelay): Promise<string> {
  await relay.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(relay.app.server.address() as AddressInfo).port}`;
}

export function rowReads(relay: TestRelay): Record<string, unknown>[] {
  return relay.auditRecords().filter((record) => record.endpoint_kind === 'rows');
}

export const person = (row: Row) => ({
  type: 'person',
  identifiers: [
    { scheme: 'national_id', value: String(row.national_id) },
    { scheme: 'person_id', value: String(row.person_id) },
  ],
});

export interface Item {
  input_index: number;
  evaluation_id?: string;
  target_ref: { handle: string } | null;
  status: string;
  claim_results: Record<string, unknown>[];
  errors: { code: string; title: string; retryable: boolean; claim_id?: string }[];
}

export interface BatchEvaluations {
  /** The civil registry relay allowing `.in` on `national_id`. */
  readonly civil: TestRelay;
  /** The social protection relay allowing `.in` on `head_of_household_person_id`. */
  readonly social: TestRelay;
  /** The demo civil registry relay as it ships. */
  readonly plainCivil: TestRelay;
  /** The demo social protection relay as it ships. */
  readonly plainSocial: TestRelay;
  /** Bulk reads over `civil` and `social`. */
  readonly bulk: TestVerifier;
  /** Single reads over the plain relays. */
  readonly plain: TestVerifier;
  /** Bulk reads configured, but against the plain relays, which refuse `.in` on the lookup fields. */
  readonly refused: TestVerifier;
  /** Bulk reads over `civil` and `social`, single evaluations arriving together sharing their upstream reads. */
  readonly coalescing: TestVerifier;
  /** Living demo persons who head exactly one household (at least 100). */
  readonly heads: Row[];
  /** A deceased demo person. */
  readonly deceased: Row;
}

/** Starts the relays and verifiers before the suite's tests and stops them after. */
export function useBatchEvaluations(): BatchEvaluations {
  let civil: TestRelay;
  let social: TestRelay;
  let plainCivil: TestRelay;
  let plainSocial: TestRelay;
  let bulk: TestVerifier;
  let plain: TestVerifier;
  let refused: TestVerifier;
  let coalescing: TestVerifier;
  let heads: Row[];
  let deceased: Row;

  before(async () => {
    [civil, social, plainCivil, plainSocial] = await Promise.all([
      startDemoRelay({ edit: civilAllowsIn }),
      startDemoRelay({ edit: socialAllowsIn }),
      startDemoRelay(),
      startDemoRelay(),
    ]);
    const [civilUrl, socialUrl, plainCivilUrl, plainSocialUrl] = await Promise.all(
      [civil, social, plainCivil, plainSocial].map(listen),
    );
    bulk = await startTestVerifier({ relays: { civil: civilUrl, social: socialUrl }, bulk: true });
    plain = await startTestVerifier({ relays: { civil: plainCivilUrl, social: plainSocialUrl } });
    // Bulk reads configured, but against relays that refuse `.in` on the lookup fields.
    refused = await startTestVerifier({
      relays: { civil: plainCivilUrl, social: plainSocialUrl },
      bulk: true,
    });
    // Single evaluations arriving together share their upstream reads.
    coalescing = await startTestVerifier({
      relays: { civil: civilUrl, social: socialUrl },
      bulk: true,
      edit: (text) =>
        text.replaceAll(
          'bulk_mode: rda_in_filter\n',
          'bulk_mode: rda_in_filter\n      coalesce_reads: true\n',
        ),
    });
    const data = await readDemoData();
    const headsOf = new Map<string, number>();
    for (const household of data.households) {
      const id = String(household.head_of_household_person_id);
      headsOf.set(id, (headsOf.get(id) ?? 0) + 1);
    }
    heads = data.persons.filter((row) => row.deceased === false && headsOf.get(String(row.person_id)) === 1);
    deceased = data.persons.find((row) => row.deceased === true) as Row;
    assert.ok(heads.length >= 100, 'the demo data has 100 living heads of one household each');
  });

  after(async () => {
    await Promise.all([bulk, plain, refused, coalescing].map((verifier) => verifier?.close()));
    await Promise.all([civil, social, plainCivil, plainSocial].map((relay) => relay?.close()));
  });

  return {
    get civil() {
      return civil;
    },
    get social() {
      return social;
    },
    get plainCivil() {
      return plainCivil;
    },
    get plainSocial() {
      return plainSocial;
    },
    get bulk() {
      return bulk;
    },
    get plain() {
      return plain;
    },
    get refused() {
      return refused;
    },
    get coalescing() {
      return coalescing;
    },
    get heads() {
      return heads;
    },
    get deceased() {
      return deceased;
    },
  };
}
