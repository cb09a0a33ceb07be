// Issuer key fetching: discovery, caching on the injected clock, rate-limited refresh and outages.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  expectProblem,
  jsonResponse,
  jwksOf,
  makeSigner,
  oidcTestOptions,
  type StubRoute,
  signToken,
  stubFetch,
  T0,
  TEST_ISSUER,
  TEST_JWKS_URL,
  type TestSigner,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import { createOidcAuthenticator } from './oidc-bearer.ts';
import { createOidcKeySource } from './oidc-key-source.ts';

const DISCOVERY_URL = `${TEST_ISSUER}/.well-known/openid-configuration`;
const TTL = 60_000;

describe('OIDC issuer keys', () => {
  let rs: TestSigner;
  let other: TestSigner;
  let server: Server;
  let base: string;

  before(async () => {
    rs = await makeSigner('RS256', 'k-rs');
    other = await makeSigner('RS256', 'k-other');
    // A real server for the behaviour a stub cannot show: redirects and refused connections.
    server = createServer((request, response) => {
      if (request.url === '/jwks') {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(jwksOf(rs)));
      } else {
        response.writeHead(302, { location: '/jwks' }).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const source = (routes: Record<string, StubRoute>, discovery = false, ttl = TTL) => {
    const net = stubFetch(routes);
    const clock = fixedClock(T0);
    const options = discovery
      ? { ...oidcTestOptions({ jwks_cache_ttl: ttl, discovery_url: DISCOVERY_URL }), jwks_url: undefined }
      : oidcTestOptions({ jwks_cache_ttl: ttl });
    return { keys: createOidcKeySource(options, { clock, fetch: net.fetch }), net, clock };
  };
  const header = { alg: 'RS256', kid: 'k-rs' };

  it('caches the key set for jwks_cache_ttl, then fetches it again', async () => {
    const { keys, net, clock } = source({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(rs)) });
    assert.equal((await keys.keysFor(header)).length, 1);
    clock.advance(TTL - 1);
    await keys.keysFor(header);
    assert.equal(net.calls.length, 1);
    clock.advance(1);
    await keys.keysFor(header);
    assert.equal(net.calls.length, 2);
  });

  it('honours a jwks_cache_ttl shorter than the 30 s refresh cooldown', async () => {
    let published = [rs];
    const routes = { [TEST_JWKS_URL]: () => jsonResponse(jwksOf(...published)) };
    const { keys, net, clock } = source(routes, false, 1_000);
    await keys.keysFor(header);
    published = [other];
    clock.advance(999);
    assert.equal((await keys.keysFor(header)).length, 1);
    clock.advance(1);
    await expectProblem(keys.keysFor(header), 'auth.kid_unknown');
    assert.equal((await keys.keysFor({ alg: 'RS256', kid: 'k-other' })).length, 1);
    assert.equal(net.calls.length, 2);
  });

  it('shares one fetch between concurrent cold requests', async () => {
    const { keys, net } = source({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(rs)) });
    await Promise.all([1, 2, 3, 4, 5].map(() => keys.keysFor(header)));
    assert.equal(net.calls.length, 1);
  });

  it('refreshes at most once per 30 s for an unknown kid', async () => {
    let published = [rs];
    const { keys, net, clock } = source({ [TEST_JWKS_URL]: () => jsonResponse(jwksOf(...published)) });
    await keys.keysFor(header);
    published = [rs, other];
    await expectProblem(keys.keysFor({ alg: 'RS256', kid: 'k-other' }), 'auth.kid_unknown');
    assert.equal(net.calls.length, 1);
    clock.advance(29_999);
    await expectProblem(keys.keysFor({ alg: 'RS256', kid: 'k-other' }), 'auth.kid_unknown');
    assert.equal(net.calls.length, 1);
    clock.advance(1);
    assert.equal((await keys.keysFor({ alg: 'RS256', kid: 'k-other' })).length, 1);
    assert.equal(net.calls.length, 2);
    const problem = await expectProblem(keys.keysFor({ alg: 'RS256', kid: 'k-gone' }), 'auth.kid_unknown');
    assert.equal(problem.status, 401);
    assert.equal(net.calls.length, 2);
  });

  it('reads jwks_uri from discovery once and checks the document issuer', async () => {
    const good = source(
      {
        [DISCOVERY_URL]: () => jsonResponse({ issuer: TEST_ISSUER, jwks_uri: TEST_JWKS_URL }),
        [TEST_JWKS_URL]: () => jsonResponse(jwksOf(rs)),
      },
      true,
    );
    await good.keys.keysFor(header);
    good.clock.advance(TTL);
    await good.keys.keysFor(header);
    assert.deepEqual(good.net.calls, [DISCOVERY_URL, TEST_JWKS_URL, TEST_JWKS_URL]);

    for (const document of [
      { issuer: 'https://evil.test', jwks_uri: TEST_JWKS_URL },
      { jwks_uri: TEST_JWKS_URL },
      { issuer: TEST_ISSUER },
      { issuer: TEST_ISSUER, jwks_uri: 'http://idp.test/jwks' },
      [],
    ]) {
      const bad = source({ [DISCOVERY_URL]: () => jsonResponse(document) }, true);
      const problem = await expectProblem(bad.keys.keysFor(header), 'auth.jwks_unavailable');
      assert.equal(problem.status, 503);
      assert.ok(problem.cause instanceof Error);
    }
  });

  it('maps unreachable or unusable key endpoints to auth.jwks_unavailable', async () => {
    const refused = await new Promise<string>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/jwks`;
        probe.close(() => resolve(url));
      });
    });
    const down = createOidcAuthenticator(oidcTestOptions({ jwks_url: refused }), { clock: fixedClock(T0) });
    const problem = await expectProblem(down.authenticate(await signToken(rs)), 'auth.jwks_unavailable');
    assert.equal(problem.status, 503);
    assert.ok(problem.cause !== undefined);

    const redirected = createOidcAuthenticator(oidcTestOptions({ jwks_url: `${base}/moved` }), {
      clock: fixedClock(T0),
    });
    await expectProblem(redirected.authenticate(await signToken(rs)), 'auth.jwks_unavailable');
    const direct = createOidcAuthenticator(oidcTestOptions({ jwks_url: `${base}/jwks` }), {
      clock: fixedClock(T0),
    });
    assert.equal((await direct.authenticate(await signToken(rs))).id, 'client-1');

    for (const route of [
      () => new Response('oops', { status: 500 }),
      () => new Response('{not json'),
      () => jsonResponse({ keys: 'none' }),
      () => jsonResponse({ keys: [{ kty: 'RSA', kid: 'k-rs', e: 'AQAB' }] }),
    ]) {
      const { keys } = source({ [TEST_JWKS_URL]: route });
      await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    }
  });

  it('keeps the last good keys through an outage and retries after the cooldown', async () => {
    let up = true;
    const { keys, net, clock } = source({
      [TEST_JWKS_URL]: () => (up ? jsonResponse(jwksOf(rs)) : new Response('', { status: 503 })),
    });
    await keys.keysFor(header);
    up = false;
    clock.advance(TTL);
    assert.equal((await keys.keysFor(header)).length, 1, 'stale keys still verify');
    assert.equal(net.calls.length, 2);
    clock.advance(10_000);
    await keys.keysFor(header);
    assert.equal(net.calls.length, 2, 'no fetch during the cooldown');
    up = true;
    clock.advance(20_000);
    await keys.keysFor(header);
    assert.equal(net.calls.length, 3);
    clock.advance(TTL - 1);
    await keys.keysFor(header);
    assert.equal(net.calls.length, 3, 'a successful refresh restarts the TTL');
  });

  it('recovers from a cold outage on the next request', async () => {
    let up = false;
    const { keys, net } = source({
      [TEST_JWKS_URL]: () => (up ? jsonResponse(jwksOf(rs)) : new Response('', { status: 502 })),
    });
    await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    up = true;
    assert.equal((await keys.keysFor(header)).length, 1);
    assert.equal(net.calls.length, 2);
  });
});
