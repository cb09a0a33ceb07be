// Discovery documents as a client written against the verifier contract (§2.3, §2.4) reads them, and as the
// runtime OpenAPI document describes them: every member the routes answer is declared, with its type.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

/** The document with every object schema closed, so a member the schemas do not declare fails validation. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, closed(value)]));
  return 'properties' in copy ? { ...copy, additionalProperties: false } : copy;
}

describe('verifier discovery against the contract and the OpenAPI document', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
      // The optional members of a summary, so the schemas are checked against them too.
      edit: (text) =>
        text
          .replace(
            '        evidence_type_iri: https://demo.example.gov/evidence-types/eligibility\n',
            '        evidence_type: Eligibility\n        evidence_type_iri: https://demo.example.gov/evidence-types/eligibility\n',
          )
          .replace(
            '      title: Alive head of an enrolled household\n',
            '      title: Alive head of an enrolled household\n      description: For the cash transfer.\n      purpose: https://demo.example.gov/purpose/benefit-eligibility\n',
          )
          .replace('      value: { type: integer }\n', '      value: { type: integer, unit: person }\n'),
    });
  });
  after(() => verifier?.close());

  const body = async (path: string) => {
    const response = await verifier.get(path, { as: 'full' });
    assert.equal(response.statusCode, 200, response.body);
    return JSON.parse(response.body);
  };

  it('answers every discovery route with exactly the members its OpenAPI schema declares', async () => {
    const document = await body('/openapi.json');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ ...(closed(document) as object), $id: 'verifier' });
    const check = (name: string, value: unknown, label: string) => {
      const validate = ajv.getSchema(`verifier#/components/schemas/${name}`);
      assert.ok(validate, name);
      assert.ok(validate(value), `${label}: ${JSON.stringify(validate.errors)}`);
    };
    const envelope = await body('/.well-known/evidence-service');
    assert.ok(
      envelope.claims.some((claim: { description?: string }) => claim.description),
      'edit applied',
    );
    check('ServiceDocument', envelope, 'envelope');
    check('ClaimList', await body('/v1/claims'), '/v1/claims');
    for (const id of ['eligible', 'household_size_plus', 'person_registered', 'birth_date'])
      check('ClaimSummary', await body(`/v1/claims/${id}`), id);
    check('FormatList', await body('/v1/formats'), '/v1/formats');
  });

  it('gives every claim summary an `oots` member, null as the contract has it for a claim without OOTS', async () => {
    // A reference client tells "no OOTS block" by `oots === null`; an absent member would read as present.
    const { data } = await body('/v1/claims');
    assert.ok(data.length > 0);
    for (const claim of data) assert.equal(claim.oots, null, `${claim.id} has oots: null`);
    assert.equal((await body('/v1/claims/eligible')).oots, null);
    const { claims } = await body('/.well-known/evidence-service');
    assert.equal(claims.length, data.length, 'the envelope lists the same claims');
    for (const claim of claims) assert.equal(claim.oots, null, `${claim.id} has oots: null in the envelope`);
  });

  it('names the bearer scheme as the contract envelope and the OpenAPI security scheme do', async () => {
    const { auth } = await body('/.well-known/evidence-service');
    assert.deepEqual(auth.bearer, { header: 'Authorization', scheme: 'bearer', format: 'Bearer <token>' });
    assert.equal((await body('/openapi.json')).components.securitySchemes.bearer.scheme, 'bearer');
  });
});
