import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withOidcAuthResponses } from './oidc-openapi-responses.ts';

const problem = (description: string) => ({ description });

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
        '503': problem('Issuer keys unavailable'),
      });
    }
    assert.deepEqual(out['/rows'].parameters, []);
    assert.equal(out['/ready'].get, probe);
    assert.deepEqual(
      shared,
      { '200': { description: 'Rows' }, '403': problem('Scope denied') },
      'not mutated',
    );
  });
});
