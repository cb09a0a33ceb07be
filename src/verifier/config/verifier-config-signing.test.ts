// Signing keys and credential profiles are checked at load against each other and the claims they serve.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, ENV, issuesOf } from './verifier-config-test-support.ts';

const SIGNING_ENV = { ...ENV, ISSUER_JWK: '{"kty":"OKP"}' };

/** BASE with `alive` offered through profile `p1` signed by `k1`, both editable. */
function issuing(edit: (text: string) => string = (text) => text): string {
  const text = BASE.replace(
    '      disclosure: { default: predicate, allowed: [predicate, redacted] }\n',
    '      disclosure: { default: predicate, allowed: [predicate, redacted] }\n      credential_profiles: [p1]\n',
  ).concat(`  signing_keys:
    k1: { provider: local_jwk_env, private_jwk_env: ISSUER_JWK, kid: "did:web:v.example#k1" }
  credential_profiles:
    p1:
      format: application/dc+sd-jwt
      issuer: did:web:v.example
      signing_key: k1
      vct: https://v.example/credentials/alive/v1
      allowed_claims: [alive]
`);
  return edit(text);
}

const messages = (text: string) =>
  issuesOf(text, SIGNING_ENV).map((issue) => `${issue.code} @ ${issue.path}: ${issue.message}`);

describe('verifier signing config', () => {
  it('loads a profile whose issuer is its key DID, or the https origin of a did:web key', () => {
    assert.equal(loadVerifierConfigText(issuing(), SIGNING_ENV, '/tmp').config.evidence.claims.length, 1);
    const https = issuing((text) => text.replace('issuer: did:web:v.example', 'issuer: https://v.example'));
    assert.equal(loadVerifierConfigText(https, SIGNING_ENV, '/tmp').warnings.length, 0);
  });

  it('refuses an issuer that is not the DID of its signing key', () => {
    const other = issuing((text) => text.replace('issuer: did:web:v.example', 'issuer: did:web:w.example'));
    assert.deepEqual(messages(other), [
      'config.validation_error @ evidence.credential_profiles.p1.issuer: must be the DID of signing key k1 (did:web:v.example), or its https origin',
    ]);
    const https = issuing((text) => text.replace('issuer: did:web:v.example', 'issuer: https://w.example'));
    assert.equal(messages(https).length, 1);
  });

  it('refuses an https issuer beside a did:web kid whose host is not valid percent-encoding, as a config issue', () => {
    const broken = issuing((text) =>
      text
        .replace('kid: "did:web:v.example#k1"', 'kid: "did:web:v.ex%ZZample#k1"')
        .replace('issuer: did:web:v.example', 'issuer: https://v.example'),
    );
    assert.deepEqual(messages(broken), [
      'config.validation_error @ evidence.credential_profiles.p1.issuer: must be the DID of signing key k1 (did:web:v.ex%ZZample), or its https origin',
    ]);
  });

  it('refuses two keys publishing one kid', () => {
    const twice = issuing((text) =>
      text.replace(
        '  credential_profiles:\n    p1:',
        '    k2: { provider: local_jwk_env, private_jwk_env: ISSUER_JWK, kid: "did:web:v.example#k1" }\n  credential_profiles:\n    p1:',
      ),
    );
    assert.deepEqual(messages(twice), [
      'config.duplicate_id @ evidence.signing_keys.k2.kid: kid `did:web:v.example#k1` is published by signing key k1 too',
    ]);
  });

  it('links profiles and claims both ways', () => {
    const unlisted = issuing((text) => text.replace('      credential_profiles: [p1]\n', ''));
    assert.deepEqual(messages(unlisted), [
      'config.validation_error @ evidence.credential_profiles.p1.allowed_claims.0: claim `alive` does not list p1 in its credential_profiles',
    ]);
    const notAllowed = issuing((text) =>
      text
        .replace('allowed_claims: [alive]', 'allowed_claims: [other]')
        .replace(
          '  signing_keys:',
          '    - { id: other, title: Other, version: "1", subject_type: person, rule: { type: plugin, plugin: x }, credential_profiles: [p1] }\n  signing_keys:',
        ),
    );
    assert.deepEqual(messages(notAllowed), [
      'config.validation_error @ evidence.claims.0.credential_profiles.0: credential profile p1 does not list `alive` in its allowed_claims',
    ]);
  });

  it('takes an https vct only', () => {
    const plain = issuing((text) =>
      text.replace('vct: https://v.example/credentials/alive/v1', 'vct: "http://v.example/alive"'),
    );
    assert.deepEqual(messages(plain), [
      'config.validation_error @ evidence.credential_profiles.p1.vct: must be an https URL',
    ]);
  });

  it('limits a kid to 512 characters and a vct to 2048: both travel in every credential', () => {
    const kid = (n: number) => `did:web:v.example#${'k'.repeat(n - 18)}`;
    const vct = (n: number) => `https://v.example/${'c'.repeat(n - 18)}`;
    const sized = (kidLength: number, vctLength: number) =>
      issuing((text) =>
        text
          .replace('kid: "did:web:v.example#k1"', `kid: "${kid(kidLength)}"`)
          .replace('vct: https://v.example/credentials/alive/v1', `vct: "${vct(vctLength)}"`),
      );
    assert.deepEqual(messages(sized(513, 2049)), [
      'config.validation_error @ evidence.signing_keys.k1.kid: must be at most 512 characters',
      'config.validation_error @ evidence.credential_profiles.p1.vct: must be at most 2048 characters',
    ]);
    assert.doesNotThrow(() => loadVerifierConfigText(sized(512, 2048), SIGNING_ENV, '/tmp'));
  });
});
