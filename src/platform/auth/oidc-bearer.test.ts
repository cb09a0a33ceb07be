// OIDC bearer authentication against a real identity provider (oidc-provider on 127.0.0.1).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { expectProblem, makeSigner, signToken } from '../../../test/helpers/oidc-test-tokens.ts';
import {
  type StartOidcProviderOptions,
  startOidcProvider,
  type TestOidcProvider,
} from '../../../test/helpers/start-oidc-provider.ts';
import { fixedClock } from '../clock.ts';
import { createOidcAuthenticator, type OidcOptions } from './oidc-bearer.ts';

const SCOPES = ['relay:read', 'household:rows', 'idp-role'];

/** The provider stamps tokens with the wall clock, so the injected clock starts from it. */
const clockNow = () => fixedClock(new Date().toISOString());

function countingFetch() {
  const calls: string[] = [];
  let down = false;
  const wrapped = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push(String(input));
    if (down) throw new TypeError('fetch failed: simulated outage');
    return fetch(input, init);
  }) as typeof fetch;
  return {
    fetch: wrapped,
    calls,
    setDown: (value: boolean) => {
      down = value;
    },
  };
}

function optionsFor(idp: TestOidcProvider, overrides: Partial<OidcOptions> = {}): OidcOptions {
  return {
    issuer: idp.issuer,
    audiences: [idp.audience],
    discovery_url: idp.discoveryUrl,
    allowed_algorithms: ['RS256', 'ES256', 'EdDSA'],
    jwks_cache_ttl: 600_000,
    leeway: 30_000,
    scope_claim: 'scope',
    scope_map: {
      'relay:read': 'registry_relay:ops_read',
      'household:rows': ['household:rows', 'household:metadata'],
    },
    allowed_clients: [],
    allowed_token_types: ['JWT', 'at+jwt'],
    // The test provider serves plain http on loopback.
    allow_dev_insecure_fetch_urls: true,
    ...overrides,
  };
}

/** Lets background work that needs no I/O (a refresh failing at once) finish. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Retries (on real time, briefly) until the call is refused with this code: a background refresh must land first. */
async function eventuallyRefused(call: () => Promise<unknown>, code: string): Promise<void> {
  for (let waited = 0; waited < 2_000; waited += 10) {
    const refusal = await call().then(
      () => undefined,
      (error: unknown) => error,
    );
    if (refusal !== undefined) {
      await expectProblem(Promise.reject(refusal), code);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`still accepted after 2 s, expected ${code}`);
}

async function withIdp(options: StartOidcProviderOptions, run: (idp: TestOidcProvider) => Promise<void>) {
  const idp = await startOidcProvider(options);
  try {
    await run(idp);
  } finally {
    await idp.close();
  }
}

const KEYS_DUE_MS = 60_000;

/** An authenticator reading `idp`'s key set itself (no discovery), due again 60 s after each fetch; fetches counted. */
function keysOf(idp: Parameters<typeof optionsFor>[0]) {
  const clock = clockNow();
  const net = countingFetch();
  const options = optionsFor(idp, {
    discovery_url: undefined,
    jwks_url: idp.jwksUrl,
    jwks_cache_ttl: 60_000,
  });
  return { clock, net, auth: createOidcAuthenticator(options, { clock, fetch: net.fetch }) };
}

describe('OIDC bearer tokens from a real provider', () => {
  let idp: TestOidcProvider;
  before(async () => {
    idp = await startOidcProvider({ scopes: SCOPES, clients: ['ambit-test-client', 'other-client'] });
  });
  after(() => idp.close());

  it('accepts a token in discovery mode and maps its scopes', async () => {
    const net = countingFetch();
    const auth = createOidcAuthenticator(optionsFor(idp), { clock: clockNow(), fetch: net.fetch });
    const token = await idp.getToken(SCOPES);
    const principal = await auth.authenticate(token);
    assert.equal(principal.id, 'ambit-test-client');
    assert.equal(principal.authMode, 'oidc');
    assert.deepEqual([...principal.scopes].sort(), [
      'household:metadata',
      'household:rows',
      'idp-role',
      'registry_relay:ops_read',
    ]);
    assert.match(principal.credentialTag, /^sha256:[0-9a-f]{16}$/);
    assert.ok(!token.includes(principal.credentialTag.slice(7)));
    assert.deepEqual(net.calls, [idp.discoveryUrl, idp.jwksUrl]);

    // The tag follows (issuer, principal), not the token: a second token gives the same tag, another client not.
    const again = await auth.authenticate(await idp.getToken(['relay:read']));
    assert.equal(again.credentialTag, principal.credentialTag);
    assert.deepEqual([...again.scopes], ['registry_relay:ops_read']);
    const other = await auth.authenticate(await idp.getToken(['idp-role'], { clientId: 'other-client' }));
    assert.equal(other.id, 'other-client');
    assert.notEqual(other.credentialTag, principal.credentialTag);
    assert.deepEqual(net.calls.length, 2, 'discovery and keys are cached');
  });

  it('accepts a token in jwks_url mode without fetching discovery', async () => {
    const net = countingFetch();
    const options = optionsFor(idp, { discovery_url: undefined, jwks_url: idp.jwksUrl, scope_map: {} });
    const auth = createOidcAuthenticator(options, { clock: clockNow(), fetch: net.fetch });
    const principal = await auth.authenticate(await idp.getToken(['relay:read', 'idp-role']));
    assert.equal(principal.id, 'ambit-test-client');
    assert.deepEqual([...principal.scopes].sort(), ['idp-role', 'relay:read']);
    assert.deepEqual(net.calls, [idp.jwksUrl]);
  });

  it('accepts ES256 and EdDSA tokens from providers signing with those algorithms', async () => {
    for (const algorithm of ['ES256', 'EdDSA'] as const) {
      await withIdp({ algorithm, scopes: SCOPES }, async (other) => {
        const auth = createOidcAuthenticator(optionsFor(other), { clock: clockNow() });
        const principal = await auth.authenticate(await other.getToken(['relay:read']));
        assert.deepEqual([...principal.scopes], ['registry_relay:ops_read'], algorithm);
        const rsaOnly = createOidcAuthenticator(optionsFor(other, { allowed_algorithms: ['RS256'] }), {
          clock: clockNow(),
        });
        await expectProblem(
          rsaOnly.authenticate(await other.getToken(['relay:read'])),
          'auth.algorithm_not_allowed',
        );
      });
    }
  });

  it('reads an object-valued role claim and enforces allowed_clients on real tokens', async () => {
    const options = optionsFor(idp, {
      scope_claim: 'urn:test:roles',
      scope_map: { auditor: ['people:metadata', 'people:aggregate'] },
      allowed_clients: ['ambit-test-client'],
    });
    const auth = createOidcAuthenticator(options, { clock: clockNow() });
    const roles = { auditor: { org: 'a' }, 'plain-role': {} };
    const token = await idp.getToken(['relay:read'], { claims: { 'urn:test:roles': roles } });
    const principal = await auth.authenticate(token);
    assert.deepEqual([...principal.scopes].sort(), ['people:aggregate', 'people:metadata', 'plain-role']);
    const foreign = await idp.getToken(['relay:read'], { clientId: 'other-client' });
    await expectProblem(auth.authenticate(foreign), 'auth.client_not_allowed');
  });

  it('rejects a token issued for another audience, and accepts any configured audience', async () => {
    const auth = createOidcAuthenticator(optionsFor(idp), { clock: clockNow() });
    const foreign = await idp.getToken(['relay:read'], { audience: 'https://elsewhere.test/api' });
    const problem = await expectProblem(auth.authenticate(foreign), 'auth.audience_mismatch');
    assert.equal(problem.status, 401);
    assert.equal((problem.cause as { code?: string }).code, 'ERR_JWT_CLAIM_VALIDATION_FAILED');

    const both = createOidcAuthenticator(
      optionsFor(idp, { audiences: [idp.audience, 'https://elsewhere.test/api'] }),
      {
        clock: clockNow(),
      },
    );
    assert.equal((await both.authenticate(foreign)).id, 'ambit-test-client');
  });

  it('rejects tokens when the configured issuer is not the provider', async () => {
    const token = await idp.getToken(['relay:read']);
    const wrongIssuer = `${idp.issuer}/other`;
    const direct = createOidcAuthenticator(
      optionsFor(idp, { issuer: wrongIssuer, discovery_url: undefined, jwks_url: idp.jwksUrl }),
      { clock: clockNow() },
    );
    await expectProblem(direct.authenticate(token), 'auth.issuer_mismatch');

    // In discovery mode the document's issuer must match, so the keys are never trusted.
    const discovered = createOidcAuthenticator(optionsFor(idp, { issuer: wrongIssuer }), {
      clock: clockNow(),
    });
    const problem = await expectProblem(discovered.authenticate(token), 'auth.jwks_unavailable');
    assert.equal(problem.status, 503);
    assert.match(String((problem.cause as Error).message), /issuer/);
  });

  it('rejects an expired token by the injected clock, honouring the leeway', async () => {
    const token = await idp.getToken(['relay:read']);
    const exp = decodeJwt(token).exp as number;
    const justInside = createOidcAuthenticator(optionsFor(idp), {
      clock: fixedClock(new Date((exp + 29) * 1000).toISOString()),
    });
    assert.equal((await justInside.authenticate(token)).id, 'ambit-test-client');
    const late = createOidcAuthenticator(optionsFor(idp), {
      clock: fixedClock(new Date((exp + 30) * 1000).toISOString()),
    });
    const problem = await expectProblem(late.authenticate(token), 'auth.token_expired');
    assert.equal((problem.cause as { code?: string }).code, 'ERR_JWT_EXPIRED');
  });

  it('expires a cached token when the clock passes exp', async () => {
    const clock = clockNow();
    const auth = createOidcAuthenticator(optionsFor(idp), { clock });
    const token = await idp.getToken(['relay:read']);
    await auth.authenticate(token);
    clock.advance(((decodeJwt(token).exp as number) + 31) * 1000 - clock.now());
    await expectProblem(auth.authenticate(token), 'auth.token_expired');
  });

  it('serves a repeated token from the cache, re-checking only its key once the key set is due', async () => {
    const clock = clockNow();
    const net = countingFetch();
    const auth = createOidcAuthenticator(optionsFor(idp, { jwks_cache_ttl: 60_000 }), {
      clock,
      fetch: net.fetch,
    });
    const token = await idp.getToken(['relay:read']);
    await auth.authenticate(token);
    const fetches = net.calls.length;
    clock.advance(59_000);
    assert.equal((await auth.authenticate(token)).id, 'ambit-test-client');
    assert.equal(net.calls.length, fetches, 'a cache hit within jwks_cache_ttl does not touch the keys');
    // Once the key set is due a hit refetches it, in the background: through an outage the hit is still served
    // from the last good keys at once, and retries wait for the cooldown.
    net.setDown(true);
    clock.advance(1_000);
    assert.equal((await auth.authenticate(token)).id, 'ambit-test-client');
    await nextTurn();
    assert.equal(net.calls.length, fetches + 1, 'once the key set is due, a hit refetches it');
    clock.advance(29_999);
    assert.equal((await auth.authenticate(token)).id, 'ambit-test-client');
    await nextTurn();
    assert.equal(net.calls.length, fetches + 1, 'no retry within the cooldown');
    clock.advance(1);
    assert.equal((await auth.authenticate(token)).id, 'ambit-test-client');
    await nextTurn();
    assert.equal(net.calls.length, fetches + 2);
  });

  it('answers an unknown kid 503 while the issuer keys cannot be refetched, not 401', async () => {
    await withIdp({ scopes: SCOPES }, async (rotating) => {
      const { clock, net, auth } = keysOf(rotating);
      const early = await rotating.getToken(['relay:read']);
      await auth.authenticate(early);
      // The key set is due and its refresh fails: the keys in hand go on serving the tokens they verify.
      net.setDown(true);
      clock.advance(60_000);
      assert.equal((await auth.authenticate(early)).id, 'ambit-test-client');
      await nextTurn();
      assert.equal(net.calls.length, 2);
      await rotating.rotateKeys();
      const rotated = await rotating.getToken(['relay:read']);
      // Whether the new kid is the issuer's cannot be known until the keys can be fetched: the same answer
      // during the refetch cooldown as from the refetch itself, so the client retries rather than drops its token.
      const problem = await expectProblem(auth.authenticate(rotated), 'auth.jwks_unavailable');
      assert.equal(problem.status, 503);
      assert.equal(net.calls.length, 2);
      clock.advance(30_000);
      await expectProblem(auth.authenticate(rotated), 'auth.jwks_unavailable');
      assert.equal(net.calls.length, 3);
      net.setDown(false);
      clock.advance(30_000);
      assert.equal((await auth.authenticate(rotated)).id, 'ambit-test-client');
    });
  });

  it('refuses a token already accepted once its key leaves the issuer key set', async () => {
    await withIdp({ scopes: SCOPES }, async (revoking) => {
      const { clock, auth } = keysOf(revoking);
      const early = await revoking.getToken(['relay:read']);
      assert.equal((await auth.authenticate(early)).id, 'ambit-test-client');

      // Another token's unknown kid refetches the key set: the cached token is refused at once.
      const firstKid = revoking.currentKid();
      await revoking.rotateKeys();
      revoking.retireKey(firstKid);
      const later = await revoking.getToken(['relay:read']);
      clock.advance(30_000);
      assert.equal((await auth.authenticate(later)).id, 'ambit-test-client');
      await expectProblem(auth.authenticate(early), 'auth.kid_unknown');

      // With no other traffic the key set is refetched when jwks_cache_ttl ends, and the token refused then.
      const secondKid = revoking.currentKid();
      await revoking.rotateKeys();
      revoking.retireKey(secondKid);
      clock.advance(59_000);
      assert.equal((await auth.authenticate(later)).id, 'ambit-test-client');
      clock.advance(1_000);
      // Due: this request is served from the keys in hand while they are refetched, and the next ones are refused.
      assert.equal((await auth.authenticate(later)).id, 'ambit-test-client');
      await eventuallyRefused(() => auth.authenticate(later), 'auth.kid_unknown');
    });
  });

  it('picks up a rotated key: one refresh on an unknown kid, rate-limited', async () => {
    await withIdp({ scopes: SCOPES }, async (rotating) => {
      const clock = clockNow();
      const net = countingFetch();
      const options = optionsFor(rotating, { discovery_url: undefined, jwks_url: rotating.jwksUrl });
      const auth = createOidcAuthenticator(options, { clock, fetch: net.fetch });
      const first = await rotating.getToken(['relay:read']);
      await auth.authenticate(first);
      assert.equal(net.calls.length, 1);

      const newKid = await rotating.rotateKeys();
      const rotated = await rotating.getToken(['relay:read']);
      assert.equal(rotating.currentKid(), newKid);
      // The keys were fetched a moment ago, so an unknown kid fails without another fetch.
      await expectProblem(auth.authenticate(rotated), 'auth.kid_unknown');
      assert.equal(net.calls.length, 1);

      clock.advance(30_000);
      assert.equal((await auth.authenticate(rotated)).id, 'ambit-test-client');
      assert.equal(net.calls.length, 2, 'exactly one refresh');

      // A kid the provider never published: no second refresh inside the cooldown.
      const stranger = await makeSigner('RS256', 'never-published');
      const forged = await signToken(stranger, { ...decodeJwt(rotated), jti: 'x' });
      await expectProblem(auth.authenticate(forged), 'auth.kid_unknown');
      assert.equal(net.calls.length, 2);
    });
  });

  it('accepts a token signed with a key rotated in while idle, though the request itself starts the due refresh', async () => {
    await withIdp({ scopes: SCOPES }, async (rotating) => {
      const { clock, net, auth } = keysOf(rotating);
      await auth.authenticate(await rotating.getToken(['relay:read']));
      assert.equal(net.calls.length, 1);

      // Nothing for longer than jwks_cache_ttl; meanwhile the issuer rotates. The first request is the one
      // that finds the key set due: it waits for that refresh instead of refusing the kid it does not know yet.
      clock.advance(KEYS_DUE_MS);
      await rotating.rotateKeys();
      const rotated = await rotating.getToken(['relay:read']);
      assert.equal((await auth.authenticate(rotated)).id, 'ambit-test-client');
      assert.equal(net.calls.length, 2, 'one fetch: the due refresh');
    });
  });
});
