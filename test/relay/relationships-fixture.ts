// Shared by the relationship tests: the demo config with members restricted (capped at 5, behind MEMBER_SCOPE),
// a demo relay and a restricted one, the demo files, and the workbook's members and payments of a household.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type Persona, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { type DemoData, readDemoData } from './read-demo-data.ts';

export const SP = '/v1/datasets/social_protection/entities';
export const HOUSEHOLDS = `${SP}/households/records`;
export const MEMBERS = `${SP}/members/records`;
export const PAYMENTS = `${SP}/payments/records`;
export const ETAG = /^"sha256:[0-9a-f]{64}"$/;

/** A scope no demo persona holds except where granted below. */
export const MEMBER_SCOPE = 'social_protection:evidence_verification';

/**
 * The demo config with members capped at 5 per expansion or page, and readable only with MEMBER_SCOPE
 * (granted to the caseworker, not to the verifier service).
 */
export function restrictMembers(text: string): string {
  const start = text.indexOf('      - name: members\n');
  const end = text.indexOf('      - name: payments\n', start);
  assert.ok(start > 0 && end > start, 'members entity found in the demo config');
  const members = text
    .slice(start, end)
    .replace('read_scope: social_protection:rows', `read_scope: ${MEMBER_SCOPE}`)
    .replace('default_limit: 25', 'default_limit: 5');
  const grant = '        name: AMBIT_DEMO_CASEWORKER_HASH\n      scopes:\n';
  const edited = text.slice(0, start) + members + text.slice(end);
  assert.ok(edited.includes(grant), 'caseworker key found in the demo config');
  return edited.replace(grant, `${grant}        - ${MEMBER_SCOPE}\n`);
}

/** Starts a demo relay and a restricted one and reads the demo files before the suite's tests; closes both after. */
export function useRelationships() {
  let relay: TestRelay;
  let restricted: TestRelay;
  let demo: DemoData;
  before(async () => {
    [relay, restricted, demo] = await Promise.all([
      startDemoRelay(),
      startDemoRelay({ edit: restrictMembers }),
      readDemoData(),
    ]);
  });
  after(() => Promise.all([relay.close(), restricted.close()]));

  const membersOf = (householdId: unknown) => demo.members.filter((row) => row.household_id === householdId);
  const paymentsOf = (householdId: unknown) =>
    demo.payments.filter((row) => row.household_id === householdId);
  const household = (householdId: unknown) => demo.households.find((row) => row.household_id === householdId);

  async function getJson(path: string, as: Persona = 'caseworker', on = relay) {
    const response = await on.get(path, { as });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    return { response, body: response.json() };
  }

  return {
    get relay() {
      return relay;
    },
    /** The relay serving the demo config through `restrictMembers`. */
    get restricted() {
      return restricted;
    },
    get demo() {
      return demo;
    },
    membersOf,
    paymentsOf,
    household,
    /** GETs `path` as `as` from `on` (the demo relay by default) and asserts a 200 JSON answer. */
    getJson,
  };
}
