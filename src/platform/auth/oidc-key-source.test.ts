// Issuer key fetching: discovery, caching on the injected clock, rate-limited refresh and outages.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
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
import type { Logger } from '../log.ts';
import { createOidcAuthenticator } from './oidc-bearer.ts';
import { createOidcKeySource, type OidcKeySource } from './oidc-key-source.ts';

const DISCOVERY_URL = `${TEST_ISSUER}/.well-known/openid-configuration`;
const TTL = 60_000;

interface LogLine {
  readonly level: 'warn' | 'info';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

function captureLogger() {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, fields, message });
    };
  const logger = { warn: at('warn'), info: at('info') } as unknown as Pick<Logger, 'warn' | 'info'>;
  return { logger, lines, warnings: () => lines.filter((line) => line.level === 'warn') };
}

/** Waits (briefly, on real time) until a background refresh has settled on this generation. */
async function settledOn(keys: OidcKeySource, generation: number, now: () => number): Promise<void> {
  for (let waited = 0; waited < 2_000; waited += 5) {
    if (keys.isCurrent(generation, now())) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`the key source did not settle on generation ${generation}`);
}

/** A public RSA JWK of 1024 bits, which jose refuses to verify with. */
function weakRsaJwk(kid: string): Record<string, unknown> {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  return { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}

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
    const log = captureLogger();
    const options = discovery
      ? { ...oidcTestOptions({ jwks_cache_ttl: ttl, discovery_url: DISCOVERY_URL }), jwks_url: undefined }
      : oidcTestOptions({ jwks_cache_ttl: ttl });
    const keys = createOidcKeySource(options, { clock, fetch: net.fetch, logger: log.logger });
    return { keys, net, clock, log };
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
    // Due: the request is served from the current keys while the refresh runs, and the next sees its result.
    assert.equal((await keys.keysFor(header)).length, 1);
    await settledOn(keys, 2, clock.now);
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
      // Loopback over plain http only with allow_dev_insecure_fetch_urls, as for a configured URL.
      { issuer: TEST_ISSUER, jwks_uri: 'http://127.0.0.1:9/jwks' },
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
    await settledOn(keys, 1, clock.now);
    assert.equal(net.calls.length, 2);
    clock.advance(10_000);
    await keys.keysFor(header);
    assert.equal(net.calls.length, 2, 'no fetch during the cooldown');
    up = true;
    clock.advance(20_000);
    await keys.keysFor(header);
    await settledOn(keys, 2, clock.now);
    assert.equal(net.calls.length, 3);
    clock.advance(TTL - 1);
    await keys.keysFor(header);
    assert.equal(net.calls.length, 3, 'a successful refresh restarts the TTL');
  });

  it('recovers from a cold outage once the backoff has passed', async () => {
    let up = false;
    const { keys, net, clock } = source({
      [TEST_JWKS_URL]: () => (up ? jsonResponse(jwksOf(rs)) : new Response('', { status: 502 })),
    });
    await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    up = true;
    clock.advance(999);
    const waiting = await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    assert.equal(waiting.status, 503);
    assert.equal(net.calls.length, 1, 'no fetch during the backoff');
    clock.advance(1);
    assert.equal((await keys.keysFor(header)).length, 1);
    assert.equal(net.calls.length, 2);
  });

  it('fetches once for a burst of requests while no key set was ever fetched, backing off up to 30 s', async () => {
    const { keys, net, clock } = source({ [TEST_JWKS_URL]: () => new Response('', { status: 500 }) });
    await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    const burst = await Promise.allSettled(Array.from({ length: 50 }, () => keys.keysFor(header)));
    assert.ok(burst.every((outcome) => outcome.status === 'rejected'));
    assert.equal(net.calls.length, 1, 'the burst answers 503 from the recorded failure');
    // Each failure doubles the wait: 1 s, 2 s, 4 s, 8 s, 16 s, then 30 s at most.
    for (const wait of [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]) {
      const fetches: number = net.calls.length;
      clock.advance(wait - 1);
      await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
      assert.equal(net.calls.length, fetches, `no fetch ${wait - 1} ms after a failure`);
      clock.advance(1);
      await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
      assert.equal(net.calls.length, fetches + 1, `one fetch ${wait} ms after a failure`);
    }
  });

  it('serves the current keys while a due refresh hangs, with one fetch in the background', async () => {
    let hang = false;
    let release = () => {};
    const { keys, net, clock } = source({
      [TEST_JWKS_URL]: () =>
        hang
          ? new Promise<Response>((resolve) => {
              release = () => resolve(jsonResponse(jwksOf(rs, other)));
            })
          : jsonResponse(jwksOf(rs)),
    });
    await keys.keysFor(header);
    hang = true;
    clock.advance(TTL);
    const timer = (ms: number) => new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), ms));
    for (let request = 0; request < 5; request += 1) {
      const served = await Promise.race([keys.keysFor(header), timer(200)]);
      assert.notEqual(served, 'waited', 'a request with keys in hand does not wait for the issuer');
    }
    assert.equal(net.calls.length, 2);
    release();
    await settledOn(keys, 2, clock.now);
    assert.equal((await keys.keysFor({ alg: 'RS256', kid: 'k-other' })).length, 1);
    assert.equal(net.calls.length, 2);
  });

  it('refuses a key document over 1 MiB without reading past it', async () => {
    const padded = JSON.stringify({ ...jwksOf(rs), padding: 'é'.repeat(600_000) });
    let pulled = 0;
    const endlessBody = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 65_536;
          controller.enqueue(new Uint8Array(65_536).fill(0x20));
        },
      });
    const endless = () => new Response(endlessBody());
    const announced = () =>
      new Response(endlessBody(), { headers: { 'content-length': String(400 * 1024 * 1024) } });
    // 600 000 characters, but 1.2 MB of UTF-8: the limit counts bytes.
    const multibyte = source({ [TEST_JWKS_URL]: () => jsonResponse(JSON.parse(padded)) });
    await expectProblem(multibyte.keys.keysFor(header), 'auth.jwks_unavailable');

    const streamed = source({ [TEST_JWKS_URL]: endless });
    await expectProblem(streamed.keys.keysFor(header), 'auth.jwks_unavailable');
    assert.ok(pulled <= 1024 * 1024 + 4 * 65_536, `read ${pulled} bytes of an endless body`);

    pulled = 0;
    const declared = source({ [TEST_JWKS_URL]: announced });
    await expectProblem(declared.keys.keysFor(header), 'auth.jwks_unavailable');
    assert.ok(pulled <= 4 * 65_536, `read ${pulled} bytes of a body announced as 400 MiB`);

    const small = source({
      [TEST_JWKS_URL]: () => jsonResponse({ ...jwksOf(rs), padding: ' '.repeat(900_000) }),
    });
    assert.equal((await small.keys.keysFor(header)).length, 1, 'a document under 1 MiB is read');
  });

  it('logs a failed fetch once per failure streak, with the URL and status but no body', async () => {
    let status = 200;
    const { keys, clock, log } = source({
      [TEST_JWKS_URL]: () =>
        status === 200 ? jsonResponse(jwksOf(rs)) : new Response('{"secret":"body text"}', { status }),
    });
    status = 503;
    await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    clock.advance(1_000);
    await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    assert.equal(log.warnings().length, 1, 'one warning for the streak');
    const [warning] = log.warnings();
    assert.deepEqual(warning?.fields, { url: TEST_JWKS_URL, status: 503, keys_held: false });
    assert.doesNotMatch(JSON.stringify(log.lines), /secret|body text/);

    status = 200;
    clock.advance(2_000);
    await keys.keysFor(header);
    assert.equal(log.lines.at(-1)?.level, 'info', 'the recovery is logged');
    status = 500;
    clock.advance(TTL);
    await keys.keysFor(header);
    await settledOn(keys, 1, clock.now);
    clock.advance(30_000);
    await keys.keysFor(header);
    await settledOn(keys, 1, clock.now);
    assert.equal(log.warnings().length, 2, 'a new streak warns again, once');
    assert.deepEqual(log.warnings()[1]?.fields, { url: TEST_JWKS_URL, status: 500, keys_held: true });
  });

  it('logs a failed discovery with its URL (no query) and an error code', async () => {
    const withQuery = `${DISCOVERY_URL}?tenant=t1`;
    const net = stubFetch({});
    const log = captureLogger();
    const keys = createOidcKeySource(
      { ...oidcTestOptions({ discovery_url: withQuery }), jwks_url: undefined },
      { clock: fixedClock(T0), fetch: net.fetch, logger: log.logger },
    );
    await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    assert.deepEqual(log.warnings()[0]?.fields, {
      url: DISCOVERY_URL,
      error: 'fetch_failed',
      keys_held: false,
    });
  });

  it('ignores a published key that cannot verify (RSA under 2048 bits), warning once with its kid', async () => {
    const weak = weakRsaJwk('k-weak');
    const { keys, clock, log } = source({
      [TEST_JWKS_URL]: () => jsonResponse({ keys: [weak, rs.publicJwk] }),
    });
    assert.equal((await keys.keysFor(header)).length, 1);
    await expectProblem(keys.keysFor({ alg: 'RS256', kid: 'k-weak' }), 'auth.kid_unknown');
    assert.equal(
      (await keys.keysFor({ alg: 'RS256' })).length,
      1,
      'a token without kid tries the usable key only',
    );
    clock.advance(TTL);
    await keys.keysFor(header);
    await settledOn(keys, 2, clock.now);
    const warnings = log.warnings();
    assert.equal(warnings.length, 1, 'one warning, not one per refresh');
    assert.equal(warnings[0]?.fields.kid, 'k-weak');
    assert.match(String(warnings[0]?.fields.reason), /1024 bits/);
    assert.ok(!JSON.stringify(log.lines).includes(String(weak.n).slice(0, 24)), 'no key material is logged');

    const onlyWeak = source({ [TEST_JWKS_URL]: () => jsonResponse({ keys: [weak] }) });
    await expectProblem(onlyWeak.keys.keysFor(header), 'auth.jwks_unavailable');
  });
});
