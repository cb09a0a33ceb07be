// Every relay answer depends on who asks (scopes, purpose, the credential a page or cursor is bound to), so none
// may be kept by a shared cache: answers say `private, no-cache` (a client's own cache may keep a page and
// revalidate it with its ETag) unless a route says more (metadata: `private, no-store`). An API key travels in
// `x-api-key`, which, unlike `Authorization`, does not by itself keep a shared cache from storing the answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PURPOSE, startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households';

describe('relay answers and shared caches', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('marks data, discovery, probes and refusals private, revalidated', async () => {
    const byKey = { headers: { 'x-api-key': TEST_KEYS.caseworker } };
    const page = await relay.get(`${HOUSEHOLDS}/records?limit=2`, byKey);
    assert.equal(page.statusCode, 200, page.body);
    const answers = [
      page,
      // The same page again comes from the page cache.
      await relay.get(`${HOUSEHOLDS}/records?limit=2`, byKey),
      await relay.get(`${HOUSEHOLDS}/records?limit=2`, {
        headers: { ...byKey.headers, 'if-none-match': String(page.headers.etag) },
      }),
      await relay.get(`${HOUSEHOLDS}/records/hh-1001`, byKey),
      await relay.get(`${HOUSEHOLDS}/records/hh-1001/relationships/members`, byKey),
      await relay.get(`${HOUSEHOLDS}/schema`, byKey),
      await relay.get('/v1/datasets', byKey),
      await relay.get('/openapi.json', byKey),
      await relay.get('/v1/datasets/civil_registry/entities/persons/records/per-10001', {
        headers: { ...byKey.headers, 'data-purpose': PURPOSE },
      }),
      await relay.get(`${HOUSEHOLDS}/records`),
      await relay.get(`${HOUSEHOLDS}/records?limit=0`, byKey),
      await relay.get('/healthz'),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [200, 200, 304, 200, 200, 200, 200, 200, 200, 401, 400, 200],
    );
    for (const [index, answer] of answers.entries()) {
      assert.equal(answer.headers['cache-control'], 'private, no-cache', `answer ${index}`);
    }
  });

  it('keeps what a route says itself', async () => {
    const catalog = await relay.get('/metadata/catalog', { as: 'caseworker' });
    assert.equal(catalog.statusCode, 200, catalog.body);
    assert.equal(catalog.headers['cache-control'], 'private, no-store');
  });
});
