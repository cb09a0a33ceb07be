// The verifier's POST routes check the credential before they read the body: a caller without one is answered 401
// however large or broken its body is (and the body is never read), and a body refused from a caller with one is
// audited with that caller.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import { CALLER_KEYS, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const ROUTES = [
  ['/v1/evaluations', 'evaluate'],
  ['/v1/batch-evaluations', 'batch_evaluate'],
  ['/v1/evaluations/01J0000000000000000000000Z/render', 'render'],
] as const;

describe('verifier POST routes: the credential before the body', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
    });
  });
  after(() => verifier?.close());

  const send = (url: string, payload: string, headers: Record<string, string> = {}) =>
    verifier.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload,
    });

  it('answers 401 to a caller without a credential, whatever its body: too large, broken, another type', async () => {
    for (const [url, kind] of ROUTES) {
      for (const [payload, headers] of [
        [`{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`, {}],
        ['{"target":', {}],
        ['not json', { 'content-type': 'text/plain' }],
      ] as const) {
        const response = await send(url, payload, headers);
        assertProblem(response, 401, 'auth.missing_credential');
        const event = verifier.auditRecords().at(-1);
        assert.equal(event?.endpoint_kind, kind, url);
        assert.equal(event?.principal_id_hash, null);
      }
      // A wrong key is refused the same way before its body.
      assertProblem(
        await send(url, '{"target":', { 'x-api-key': 'not-a-key' }),
        401,
        'auth.missing_credential',
      );
    }
  });

  it('audits a refused body with the caller who sent it', async () => {
    for (const [url, kind] of ROUTES) {
      for (const [payload, status] of [
        ['{"target":', 400],
        [`{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`, 413],
      ] as const) {
        const response = await send(url, payload, { 'x-api-key': CALLER_KEYS.full });
        assert.equal(response.statusCode, status, `${url}: ${response.body.slice(0, 200)}`);
        const event = verifier.auditRecords().at(-1);
        assert.equal(event?.endpoint_kind, kind, url);
        assert.match(String(event?.principal_id_hash), /^hmac-sha256:/, url);
      }
    }
  });
});
