// Configs written for the verifier contract load as it states, except where docs/verifier.md says we differ.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitmentOf } from '../../platform/auth/api-key.ts';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, ENV, issuesAt, issuesOf } from './verifier-config-test-support.ts';

const SKELETON_ENV = {
  ...ENV,
  CALLER_A_KEY_HASH: ENV.CALLER_HASH,
  RELAY_A_TOKEN: 'relay-a-token',
  RELAY_B_TOKEN: 'relay-b-token',
  ISSUER_JWK: '{"kty":"OKP"}',
};

// The contract's minimal skeleton, with the differences docs/verifier.md names: our claim-result media type, no
// DCI connection, credential ids of the product's pattern.
const SKELETON = `
server: { bind: 127.0.0.1:8081 }
auth:
  mode: api_key
  api_keys:
    - id: caller_a
      fingerprint: { provider: env, name: CALLER_A_KEY_HASH, commitment: "${commitmentOf('ambit-verifier', 'caller_a', ENV.CALLER_HASH)}" }
      scopes: [civil:evidence]
audit: { sink: jsonl, path: var/audit.jsonl, hash_secret_env: AUDIT_SECRET }
evidence:
  enabled: true
  service_id: civil.notary
  source_connections:
    relay_civil: { base_url: https://relay-a.example, token_env: RELAY_A_TOKEN }
    relay_social: { base_url: https://relay-b.example, token_env: RELAY_B_TOKEN }
  signing_keys:
    k1: { provider: local_jwk_env, private_jwk_env: ISSUER_JWK, alg: EdDSA, kid: "did:web:notary.example#k1", status: active }
  credential_profiles:
    p1: { format: application/dc+sd-jwt, issuer: "did:web:notary.example", signing_key: k1,
          vct: https://notary.example/credentials/x/v1, allowed_claims: [combined],
          holder_binding: { mode: did, proof_of_possession: required, allowed_did_methods: [did:jwk] } }
  claims:
    - id: alive
      title: Alive
      version: "1"
      subject_type: person
      value: { type: boolean }
      source_bindings:
        p: { connector: registry_data_api, connection: relay_civil, required_scope: civil:evidence,
             dataset: civil, entity: person,
             lookup: { input: target.identifiers.national_id, field: national_id, op: eq, cardinality: one } }
      rule: { type: exists, source: p }
      disclosure: { default: predicate, allowed: [predicate] }
      formats: [application/vnd.ambit.claim-result+json]
    - id: enrolled
      title: Enrolled
      version: "1"
      subject_type: person
      value: { type: boolean }
      source_bindings:
        h: { connector: registry_data_api, connection: relay_social, dataset: social, entity: household,
             lookup: { input: target.identifiers.national_id, field: head_id } }
      rule: { type: exists, source: h }
      disclosure: { default: predicate, allowed: [predicate] }
    - id: combined
      title: Combined
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [alive, enrolled]
      rule: { type: cel, expression: "claims.a.value && claims.e.value",
              bindings: { claims: { a: { claim: alive }, e: { claim: enrolled } } } }
      formats: [application/vnd.ambit.claim-result+json, application/dc+sd-jwt]
      credential_profiles: [p1]
`;

describe('verifier config against the contract', () => {
  it('loads the contract skeleton, `evidence.enabled: true` and an explicit eq/one lookup included', () => {
    const { config, warnings } = loadVerifierConfigText(SKELETON, SKELETON_ENV, '/tmp');
    // `enrolled` reads the social relay behind no scope (`combined` needs alive's civil:evidence).
    assert.deepEqual(warnings, [
      'claim enrolled reads a source and requires no scope: any credential of this verifier may evaluate it (set required_scopes, or required_scope on its bindings)',
    ]);
    assert.equal(config.evidence.service_id, 'civil.notary');
    assert.equal(config.evidence.claims.length, 3);
    assert.equal(config.evidence.claims[0]?.source_bindings.p?.lookup.field, 'national_id');
  });

  it('refuses `evidence.enabled: false`, saying the verifier always serves evidence', () => {
    const text = BASE.replace('service_id: test.verifier', 'enabled: false\n  service_id: test.verifier');
    assert.deepEqual(issuesAt(text, 'evidence.enabled'), [
      {
        code: 'config.validation_error',
        message: 'must be true (or left out): the verifier always serves evidence',
      },
    ]);
  });

  it('takes only an equality lookup of one record', () => {
    const lookup = (members: string) =>
      BASE.replace('field: national_id }', `field: national_id, ${members} }`);
    const at = 'evidence.claims.0.source_bindings.p.lookup';
    const [op] = issuesAt(lookup('op: in'), `${at}.op`);
    assert.match(op?.message ?? '', /^must be one of "eq"/);
    const [cardinality] = issuesAt(lookup('cardinality: many'), `${at}.cardinality`);
    assert.match(cardinality?.message ?? '', /^must be one of "one"/);
  });

  it('refuses evidence limits outside their range together, each at its path in plain words', () => {
    const text = BASE.replace(
      'service_id: test.verifier',
      'service_id: test.verifier\n  inline_batch_limit: 0\n  concurrency: { subjects: 0, bindings: 1.5 }',
    );
    assert.deepEqual(
      issuesOf(text).map((issue) => `${issue.path}: ${issue.message}`),
      [
        'evidence.inline_batch_limit: must be >= 1',
        'evidence.concurrency.subjects: must be >= 1',
        'evidence.concurrency.bindings: must be a whole number',
      ],
    );
  });
});
