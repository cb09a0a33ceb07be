// The 503 answered while the issuer keys cannot be fetched says when the issuer will be asked again.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  expectProblem,
  jsonResponse,
  jwksOf,
  makeSigner,
  oidcTestOptions,
  type StubRoute,
  stubFetch,
  T0,
  TEST_JWKS_URL,
  type TestSigner,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import { createOidcKeySource } from './oidc-key-source.ts';

describe('Retry-After on auth.jwks_unavailable', () => {
  let rs: TestSigner;
  before(async () => {
    rs = await makeSigner('RS256', 'k-rs');
  });
  const source = (routes: Record<string, StubRoute>) => {
    const net = stubFetch(routes);
    const clock = fixedClock(T0);
    const keys = createOidcKeySource(oidcTestOptions({ jwks_cache_ttl: 60_000 }), {
      clock,
      fetch: net.fetch,
    });
    return { keys, net, clock };
  };
  const header = { alg: 'RS256', kid: 'k-rs' };
  const retryAfter = async (pending: Promise<unknown>) =>
    (await expectProblem(pending, 'auth.jwks_unavailable')).headers['retry-after'];

  it('names the rest of the backoff while no key set was ever fetched, in whole seconds, at least 1', async () => {
    const { keys, clock } = source({ [TEST_JWKS_URL]: () => new Response('', { status: 500 }) });
    // The failed fetch itself: the next attempt comes after the first backoff (1 s).
    assert.equal(await retryAfter(keys.keysFor(header)), '1');
    clock.advance(1_000);
    // The second failure doubles the backoff to 2 s; 1.5 s into it, 0.5 s are left (rounded up to 1).
    assert.equal(await retryAfter(keys.keysFor(header)), '2');
    clock.advance(1_500);
    assert.equal(await retryAfter(keys.keysFor(header)), '1');
    clock.advance(500);
    for (const seconds of ['4', '8', '16', '30', '30']) {
      assert.equal(await retryAfter(keys.keysFor(header)), seconds);
      clock.advance(Number(seconds) * 1_000);
    }
  });

  it('names the rest of the refetch cooldown when a token needs a key the failed refresh could not bring', async () => {
    let up = true;
    const { keys, clock } = source({
      [TEST_JWKS_URL]: () => (up ? jsonResponse(jwksOf(rs)) : new Response('', { status: 503 })),
    });
    await keys.keysFor(header);
    up = false;
    // A token signed with a key the held set lacks: the refetch fails, then the cooldown (30 s) holds the next.
    const unknown = { alg: 'RS256', kid: 'k-new' };
    clock.advance(30_000);
    assert.equal(await retryAfter(keys.keysFor(unknown)), '30');
    clock.advance(12_300);
    assert.equal(await retryAfter(keys.keysFor(unknown)), '18');
  });
});
