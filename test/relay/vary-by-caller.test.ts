// Answers whose content depends on who asks name the request headers it depends on in `Vary` (RFC 9110 §12.5.5):
// a page's `next_cursor` is bound to the credential and the purpose, a schema or a discovery list shows what the
// caller's scopes reveal. A client cache that reuses stored answers without revalidating them (`force-cache`, the
// Cache API) would otherwise hand one caller's page to another. A 304 carries the Vary of its 200.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { PURPOSE, startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

const SP = '/v1/datasets/social_protection';
const HOUSEHOLDS = `${SP}/entities/households`;
const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';
const CREDENTIAL = ['authorization', 'x-api-key'];
const PAGE = [...CREDENTIAL, 'data-purpose'];

function varyOf(response: Response): string[] {
  return String(response.headers.vary ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

function assertVaries(response: Response, names: readonly string[], where: string): void {
  const vary = varyOf(response);
  for (const name of names) assert.ok(vary.includes(name), `${where}: Vary ${vary.join(', ')} lacks ${name}`);
}

describe('answers that depend on the caller', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  /** The 200, its repeat (the page cache answers it) and its 304 revalidation. */
  async function threeTimes(path: string, headers: Record<string, string>): Promise<Response[]> {
    const first = await relay.get(path, { headers });
    assert.equal(first.statusCode, 200, `${path}: ${first.body}`);
    const again = await relay.get(path, { headers });
    const revalidated = await relay.get(path, {
      headers: { ...headers, 'if-none-match': String(first.headers.etag) },
    });
    assert.equal(revalidated.statusCode, 304, path);
    return [first, again, revalidated];
  }

  it('name the credential and the purpose on pages, repeated and revalidated alike', async () => {
    const bearer = { authorization: `Bearer ${TEST_KEYS.caseworker}` };
    const pages: [string, Record<string, string>][] = [
      [`${HOUSEHOLDS}/records?limit=2`, bearer],
      [`${HOUSEHOLDS}/records?limit=2&expand=members`, bearer],
      [`${HOUSEHOLDS}/records/hh-1001/relationships/members?limit=1`, bearer],
      [`${PERSONS}?person_id=per-10001`, { 'x-api-key': TEST_KEYS.caseworker, 'data-purpose': PURPOSE }],
    ];
    for (const [path, headers] of pages) {
      const answers = await threeTimes(path, headers);
      for (const answer of answers) assertVaries(answer, PAGE, `${path} (${answer.statusCode})`);
      assert.deepEqual(varyOf(answers[2] as Response), varyOf(answers[0] as Response), path);
    }
  });

  it('name the credential on documents filtered by the caller’s scopes', async () => {
    const documents: [string, keyof typeof TEST_KEYS][] = [
      [`${HOUSEHOLDS}/schema`, 'caseworker'],
      [`${SP}/aggregates`, 'analyst'],
      [`${SP}/measures`, 'analyst'],
      [`${SP}/dimensions`, 'analyst'],
    ];
    for (const [path, as] of documents) {
      const answers = await threeTimes(path, { authorization: `Bearer ${TEST_KEYS[as]}` });
      for (const answer of answers) assertVaries(answer, CREDENTIAL, `${path} (${answer.statusCode})`);
    }
    for (const path of ['/v1/datasets', SP]) {
      const listed = await relay.get(path, { as: 'caseworker' });
      assert.equal(listed.statusCode, 200, listed.body);
      assertVaries(listed, CREDENTIAL, path);
    }
  });

  it('name the credential on refusals of those routes too', async () => {
    const refused = await relay.get(`${HOUSEHOLDS}/records?limit=2`);
    assert.equal(refused.statusCode, 401);
    assertVaries(refused, PAGE, 'refused page');
  });

  it('name the credential on /openapi.json, which lists what the caller may see', async () => {
    const callers: Record<string, string>[] = [
      { 'x-api-key': TEST_KEYS.caseworker },
      { 'x-api-key': TEST_KEYS.analyst },
      {},
    ];
    for (const headers of callers) {
      const answer = await relay.get('/openapi.json', { headers });
      assert.equal(answer.statusCode, 'x-api-key' in headers ? 200 : 401, answer.body);
      assertVaries(answer, CREDENTIAL, `/openapi.json (${answer.statusCode})`);
    }
  });
});
