// The issuer key cache when the wall clock steps back (an NTP correction, a restored VM): the time since the last
// fetch reads negative, and must not hold off the next one until the clock has caught up again.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  claimsAt,
  expectProblem,
  jsonResponse,
  jwksOf,
  makeSigner,
  oidcTestOptions,
  signToken,
  stubFetch,
  T0,
  T0_SECONDS,
  TEST_JWKS_URL,
  type TestSigner,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import { createOidcAuthenticator } from './oidc-bearer.ts';

const HOUR = 3_600_000;
/** Tokens issued well before the step, so the stepped-back clock still finds them valid. */
const issuedEarlier = () => claimsAt({ iat: T0_SECONDS - 2 * 3_600 });

describe('OIDC issuer keys when the clock steps back', () => {
  let old: TestSigner;
  let rotated: TestSigner;
  before(async () => {
    old = await makeSigner('RS256', 'k-old');
    rotated = await makeSigner('RS256', 'k-new');
  });

  it('still picks up a key the issuer rotated in, with one refetch', async () => {
    let published = jwksOf(old);
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse(published) });
    const clock = fixedClock(T0);
    const auth = createOidcAuthenticator(oidcTestOptions(), { clock, fetch: net.fetch });
    await auth.authenticate(await signToken(old));
    clock.advance(-HOUR);
    published = jwksOf(old, rotated);
    const principal = await auth.authenticate(await signToken(rotated, issuedEarlier()));
    assert.equal(principal.id, 'client-1');
    assert.equal(net.calls.length, 2);
  });

  it('asks an issuer that was down at start again, rather than answering 503 until the clock catches up', async () => {
    let up = false;
    const net = stubFetch({
      [TEST_JWKS_URL]: () => (up ? jsonResponse(jwksOf(old)) : new Response('', { status: 503 })),
    });
    const clock = fixedClock(T0);
    const auth = createOidcAuthenticator(oidcTestOptions(), { clock, fetch: net.fetch });
    const token = await signToken(old, issuedEarlier());
    await expectProblem(auth.authenticate(token), 'auth.jwks_unavailable');
    clock.advance(-HOUR);
    up = true;
    assert.equal((await auth.authenticate(token)).id, 'client-1');
    assert.equal(net.calls.length, 2);
  });

  it('refetches a due key set, so a key the issuer withdrew is refused as the TTL promises', async () => {
    let published = jwksOf(old);
    const net = stubFetch({ [TEST_JWKS_URL]: () => jsonResponse(published) });
    const clock = fixedClock(T0);
    const auth = createOidcAuthenticator(oidcTestOptions(), { clock, fetch: net.fetch });
    const token = await signToken(old);
    await auth.authenticate(token);
    clock.advance(-HOUR);
    published = jwksOf(rotated);
    // The refresh runs in the background: the token stands until it lands, then is refused.
    let refusal: unknown;
    for (let waited = 0; refusal === undefined && waited < 2_000; waited += 5) {
      refusal = await auth.authenticate(token).then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await expectProblem(Promise.reject(refusal), 'auth.kid_unknown');
    assert.equal(net.calls.length, 2);
  });
});
