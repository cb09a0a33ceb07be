import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withOidcAuthResponses } from './oidc-openapi-responses.ts';

const problem = (description: string) => ({ description });
const RETRY_AFTER = { description: 'Seconds to wait before trying again', schema: { type: 'string' } };

describe('OIDC responses in an OpenAPI document', () => {
  it('adds 403 and 503 to operations that authenticate, after their own reasons, and leaves open ones alone', () => {
    // One response map shared by two operations, as the builders do.
    const shared = { '200': { description: 'Rows' }, '403': problem('Scope denied') };
    const probe = { security: [], responses: { '503': problem('Still loading') } };
    const paths = {
      '/rows': { get: { responses: shared }, post: { responses: shared }, parameters: [] },
      '/ready': { get: probe },
    };
    const out = withOidcAuthResponses(paths, problem) as typeof paths;
    for (const operation of [out['/rows'].get, out['/rows'].post]) {
      assert.deepEqual(operation.responses, {
        '200': { description: 'Rows' },
        '403': problem('Scope denied, or token client not allowed'),
        '503': { ...problem('Issuer keys unavailable'), headers: { 'Retry-After': RETRY_AFTER } },
      });
    }
    assert.deepEqual(out['/rows'].parameters, []);
    assert.equal(out['/ready'].get, probe);
    // An operation's own 503 keeps its headers beside the one the outage adds.
    const own = {
      '503': { ...problem('Loading'), headers: { 'X-Loading': { schema: { type: 'string' } } } },
    };
    const merged = withOidcAuthResponses({ '/x': { get: { responses: own } } }, problem) as {
      '/x': { get: { responses: Record<string, unknown> } };
    };
    assert.deepEqual(merged['/x'].get.responses['503'], {
      description: 'Loading, or issuer keys unavailable',
      headers: { 'X-Loading': { schema: { type: 'string' } }, 'Retry-After': RETRY_AFTER },
    });
    assert.deepEqual(
      shared,
      { '200': { description: 'Rows' }, '403': problem('Scope denied') },
      'not mutated',
    );
  });
});
