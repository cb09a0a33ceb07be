// The verifier in OIDC mode reads a string scope claim as RFC 6749 §3.3 defines it: scopes separated by spaces
// (U+0020). A scope an issuer granted as one name, with a tab or a Unicode space inside (as a parameterised scope
// whose parameter the client chose), stays one name: it never grants the scope spelled after that character.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countingReads, oneLivingPerson } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { oidcAuthBlock, startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };

describe('verifier in OIDC mode: scope separators (real IdP)', () => {
  let idp: TestOidcProvider;
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  const counted = countingReads(oneLivingPerson);

  before(async () => {
    idp = await startOidcProvider({ scopes: ['civil:evidence'] });
    upstream = await startFakeUpstream(counted.handler);
    verifier = await startTestVerifier({
      relays: { civil: upstream.url },
      edit: (text) => text.replace(/\nauth:\n[\s\S]*?\naudit:/, `\n${oidcAuthBlock(idp, [])}`),
    });
  });

  after(async () => {
    await verifier?.close();
    await upstream?.close();
    await idp?.close();
  });

  const evaluate = async (scope: string) =>
    verifier.evaluate(
      { target: TARGET, claims: ['person_alive'] },
      {
        headers: {
          'x-api-key': '',
          authorization: `Bearer ${await idp.getToken([], { claims: { scope } })}`,
        },
      },
    );

  it('grants each space-separated scope, however many spaces separate them', async () => {
    for (const scope of ['civil:evidence', 'report civil:evidence', '  report   civil:evidence  ']) {
      const response = await evaluate(scope);
      assert.equal(response.statusCode, 200, `${JSON.stringify(scope)}: ${response.body}`);
    }
  });

  it('does not split a scope at a tab, a line break or a Unicode space, and reads no source for it', async () => {
    const reads = counted.reads();
    for (const separator of ['\t', '\n', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u2028']) {
      const response = await evaluate(`report${separator}civil:evidence`);
      assertProblem(response, 403, 'auth.scope_denied');
    }
    assert.equal(counted.reads(), reads, 'no source read');
  });
});
