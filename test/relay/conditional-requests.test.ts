// If-None-Match beyond the plain GET (RFC 9110 §13.1.2, §8.6): a POST whose tag matches is refused with 412, never
// answered 304, and a 304 to HEAD carries no Content-Length (a cache would take the 0 for the stored body's).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';
import { PAYMENTS } from './aggregates-fixture.ts';
import { assertProblem } from './assert-problem.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households';

describe('conditional requests', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  const analyst = { authorization: `Bearer ${TEST_KEYS.analyst}` };
  const query = (body: unknown, headers: Record<string, string> = {}) =>
    relay.inject({
      method: 'POST',
      url: `${PAYMENTS}/query`,
      headers: { ...analyst, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(body),
    });

  it('refuses an aggregate POST whose If-None-Match matches with 412, never 304', async () => {
    const first = await query({ group_by: ['district'] });
    assert.equal(first.statusCode, 200, first.body);
    const etag = String(first.headers.etag);
    const opaque = etag.replace(/^W\//, '');
    for (const tag of [etag, opaque, '*', `"other", ${etag}`]) {
      const refused = await query({ group_by: ['district'] }, { 'if-none-match': tag });
      assertProblem(refused, 412, 'http.precondition_failed');
      assert.equal(refused.headers.vary, 'Accept', tag);
    }
    // Another query, or a tag of another answer, runs as usual.
    assert.equal((await query({ group_by: ['cycle'] }, { 'if-none-match': etag })).statusCode, 200);
    // A refused query is refused whatever If-None-Match says.
    assertProblem(await query({ max_rows: 0 }, { 'if-none-match': '*' }), 400, 'aggregate.limit_exceeded');
    // The GET of the same query still revalidates with 304.
    const get = await relay.get(`${PAYMENTS}?group_by=district`, { as: 'analyst' });
    const revalidated = await relay.get(`${PAYMENTS}?group_by=district`, {
      as: 'analyst',
      headers: { 'if-none-match': String(get.headers.etag) },
    });
    assert.equal(revalidated.statusCode, 304);
  });

  it('answers HEAD with a 304 that has no body and no Content-Length', async () => {
    for (const [path, as] of [
      [`${HOUSEHOLDS}/records?limit=2`, 'caseworker'],
      [`${HOUSEHOLDS}/records/hh-1001`, 'caseworker'],
      [`${HOUSEHOLDS}/schema`, 'caseworker'],
      ['/metadata/catalog', 'caseworker'],
      [`${PAYMENTS}?group_by=district`, 'analyst'],
    ] as const) {
      const headers = { authorization: `Bearer ${TEST_KEYS[as]}` };
      const full = await relay.inject({ method: 'HEAD', url: path, headers });
      assert.equal(full.statusCode, 200, path);
      assert.notEqual(full.headers['content-length'], '0', path);
      const etag = String(full.headers.etag);
      const head = await relay.inject({
        method: 'HEAD',
        url: path,
        headers: { ...headers, 'if-none-match': etag },
      });
      assert.equal(head.statusCode, 304, path);
      assert.equal(head.headers.etag, etag, path);
      assert.equal(head.headers['content-length'], undefined, path);
      assert.equal(head.body, '', path);
    }
  });
});
