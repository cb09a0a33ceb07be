// The verifier in OIDC mode when the issuer publishes a key set with no key at all (a broken IdP deployment): that
// is an issuer outage (503 auth.jwks_unavailable, the last good keys kept), not a verdict on every caller's token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/platform/clock.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { oidcAuthBlock, startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TTL_MS = 60_000;
const start = systemClock.now();
let offset = 0;
const clock = { now: () => start + offset };

describe('verifier in OIDC mode: an issuer key set without keys (real IdP)', () => {
  let idp: TestOidcProvider;
  let verifier: TestVerifier;
  let emptyKeySet = true;
  let keyFetches = 0;

  before(async () => {
    idp = await startOidcProvider({ scopes: ['civil:evidence'] });
    const fetchKeys: typeof fetch = async (input, init) => {
      keyFetches++;
      if (emptyKeySet) {
        return new Response('{"keys":[]}', { headers: { 'content-type': 'application/json' } });
      }
      return fetch(input, init);
    };
    verifier = await startTestVerifier({
      clock,
      edit: (text) =>
        text.replace(/\nauth:\n[\s\S]*?\naudit:/, `\n${oidcAuthBlock(idp, ['jwks_cache_ttl: 1m'])}`),
      deps: { fetch: fetchKeys },
    });
  });

  after(async () => {
    await verifier?.close();
    await idp?.close();
  });

  const claims = (token: string) =>
    verifier.get('/v1/claims', { headers: { authorization: `Bearer ${token}` } });

  it('answers 503 auth.jwks_unavailable while the only key set ever fetched holds no key', async () => {
    const token = await idp.getToken(['civil:evidence']);
    const refused = await claims(token);
    assertProblem(refused, 503, 'auth.jwks_unavailable');
    assert.equal(refused.headers['www-authenticate'], undefined, 'not a verdict on the token');
    // The first failure's backoff: the issuer is asked again in a second.
    assert.equal(refused.headers['retry-after'], '1');
    emptyKeySet = false;
    offset += 1_000;
    assert.equal((await claims(token)).statusCode, 200);
  });

  it('keeps the last good keys when a refresh finds the key set emptied', async () => {
    const token = await idp.getToken(['civil:evidence']);
    assert.equal((await claims(token)).statusCode, 200);
    emptyKeySet = true;
    const fetched = keyFetches;
    offset += TTL_MS;
    // Due: served from the keys in hand while the refresh runs in the background; then from the keys kept.
    for (let n = 0; n < 200 && keyFetches === fetched; n++) {
      const response = await claims(token);
      assert.equal(response.statusCode, 200, response.body);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(keyFetches, fetched + 1, 'the due refresh ran');
    for (let n = 0; n < 3; n++) {
      const response = await claims(token);
      assert.equal(response.statusCode, 200, response.body);
    }
    assert.equal((await claims(await idp.getToken(['civil:evidence']))).statusCode, 200);
  });
});
