// Shared by the single-evaluation tests: two real demo relays, a verifier over them, and the demo subjects.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';
import { type Row, readDemoData } from '../relay/read-demo-data.ts';

export { person, rowReads } from './batch-evaluations-fixture.ts';

async function listen(relay: TestRelay): Promise<string> {
  await relay.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(relay.app.server.address() as AddressInfo).port}`;
}

export interface Evaluations {
  /** The demo civil registry relay. */
  readonly civil: TestRelay;
  /** The demo social protection relay. */
  readonly social: TestRelay;
  /** The verifier reading both relays. */
  readonly verifier: TestVerifier;
  /** A living demo person. */
  readonly alive: Row;
  /** A deceased demo person. */
  readonly deceased: Row;
  /** A living head of an enrolled household. */
  readonly enrolledHead: Row;
  /** A living head of a household whose enrolment is pending. */
  readonly pendingHead: Row;
}

/** Starts the relays and the verifier before the suite's tests and stops them after. */
export function useEvaluations(): Evaluations {
  let civil: TestRelay;
  let social: TestRelay;
  let verifier: TestVerifier;
  let alive: Row;
  let deceased: Row;
  let enrolledHead: Row;
  let pendingHead: Row;

  before(async () => {
    [civil, social] = await Promise.all([startDemoRelay(), startDemoRelay()]);
    const [civilUrl, socialUrl] = await Promise.all([listen(civil), listen(social)]);
    verifier = await startTestVerifier({ relays: { civil: civilUrl, social: socialUrl } });
    const data = await readDemoData();
    const heads = (status: string) =>
      data.households
        .filter((household) => household.enrollment_status === status)
        .map((household) =>
          data.persons.find((row) => row.person_id === household.head_of_household_person_id),
        )
        .filter((row): row is Row => row !== undefined && row.deceased === false);
    enrolledHead = heads('enrolled')[0] as Row;
    pendingHead = heads('pending')[0] as Row;
    alive = data.persons.find((row) => row.deceased === false) as Row;
    deceased = data.persons.find((row) => row.deceased === true) as Row;
    assert.ok(
      enrolledHead && pendingHead && alive && deceased,
      'demo data has the subjects these tests need',
    );
  });

  after(async () => {
    await verifier?.close();
    await Promise.all([civil?.close(), social?.close()]);
  });

  return {
    get civil() {
      return civil;
    },
    get social() {
      return social;
    },
    get verifier() {
      return verifier;
    },
    get alive() {
      return alive;
    },
    get deceased() {
      return deceased;
    },
    get enrolledHead() {
      return enrolledHead;
    },
    get pendingHead() {
      return pendingHead;
    },
  };
}
