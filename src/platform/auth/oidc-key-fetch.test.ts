// Fetching the issuer key set over a network that may stall: the fetch timeout bounds the whole read.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  expectProblem,
  jwksOf,
  makeSigner,
  oidcTestOptions,
  stubFetch,
  T0,
  TEST_JWKS_URL,
  type TestSigner,
} from '../../../test/helpers/oidc-test-tokens.ts';
import { fixedClock } from '../clock.ts';
import { createOidcKeySource } from './oidc-key-source.ts';

describe('OIDC issuer key fetch timeout', () => {
  let rs: TestSigner;
  const header = { alg: 'RS256', kid: 'k-rs' };

  before(async () => {
    rs = await makeSigner('RS256', 'k-rs');
  });

  it('gives up on a key document still arriving when the fetch times out, even if the body ignores the abort', async () => {
    // Node's fetch can lose the abort once the request behind a response is collected: the read itself is bounded.
    // One space every 10 ms, then the key set: complete only long after the 50 ms the fetch may take.
    let cancelled = false;
    let pulls = 0;
    const dripping = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            if (cancelled) return;
            if (++pulls < 200) controller.enqueue(new TextEncoder().encode(' '));
            else {
              controller.enqueue(new TextEncoder().encode(JSON.stringify(jwksOf(rs))));
              controller.close();
            }
          },
          cancel() {
            cancelled = true;
          },
        }),
      );
    const net = stubFetch({ [TEST_JWKS_URL]: dripping });
    const keys = createOidcKeySource(oidcTestOptions(), {
      clock: fixedClock(T0),
      fetch: net.fetch,
      fetchTimeoutMs: 50,
    });
    const problem = await expectProblem(keys.keysFor(header), 'auth.jwks_unavailable');
    assert.equal((problem.cause as { reason?: unknown }).reason, 'timeout');
    assert.ok(cancelled, 'the body is cancelled, releasing the connection');
  });
});
