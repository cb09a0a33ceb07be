// Every number in a verifier config has a lower and an upper bound, and every free-text string a length limit: a
// value outside them is refused at load, at its path, rather than loading and misbehaving once it is used.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../platform/config/config-error.ts';
import { parseConfigText } from '../../platform/config/load-config-file.ts';
import { loadVerifierConfigText, loadVerifierConfigValue } from './load-verifier-config.ts';
import { BASE, ENV, issuesAt } from './verifier-config-test-support.ts';

const MIB = 1024 * 1024;
const CEL_TRUE = { type: 'cel', expression: 'true' };
const FILE_AUDIT = 'audit: { sink: file, path: audit.jsonl, hash_secret_env: AUDIT_SECRET';
const withRotate = (rotate: string) =>
  BASE.replace(
    'audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }',
    `${FILE_AUDIT}, rotate: { ${rotate} } }`,
  );
/** BASE with `block` (YAML lines at the top level) added. */
const withBlock = (block: string) => `${BASE}${block}\n`;
/** BASE with `line` added to the `evidence` block. */
const withEvidence = (line: string) =>
  BASE.replace('  service_id: test.verifier', `  service_id: test.verifier\n  ${line}`);
/** BASE with `line` added to its one claim. */
const withClaimKey = (line: string) =>
  BASE.replace('      subject_type: person', `      subject_type: person\n      ${line}`);
/** BASE with its claim offered through profile `profile`, signed by key `key`, for `allowed` claims. */
const issuing = (profile: string, key: string, allowed = '[alive]') =>
  `${withClaimKey(`credential_profiles: [${profile}]`)}  signing_keys:
    ${key}: { provider: local_jwk_env, private_jwk_env: ISSUER_JWK, kid: "did:web:v.example#k1" }
  credential_profiles:
    ${profile}:
      format: application/dc+sd-jwt
      issuer: did:web:v.example
      signing_key: ${key}
      vct: https://v.example/credentials/alive/v1
      allowed_claims: ${allowed}
`;
const SIGNING_ENV = { ...ENV, ISSUER_JWK: '{"kty":"OKP"}' };
const BINDING = 'evidence.claims.0.source_bindings.p';

const loads = (text: string) => assert.doesNotThrow(() => loadVerifierConfigText(text, ENV, '/tmp'));
const refusedAt = (text: string, path: string, message: string) =>
  assert.deepEqual(issuesAt(text, path), [{ code: 'config.validation_error', message }], path);

describe('verifier config bounds', () => {
  it('rotates the audit file at about 1 KB at least and 1 TiB at most', () => {
    // A size of a few bytes would rotate at every record, renaming every kept file each time.
    refusedAt(withRotate('max_size_mb: 1e-9'), 'audit.rotate.max_size_mb', 'must be >= 0.001');
    refusedAt(withRotate('max_size_mb: 0.0009'), 'audit.rotate.max_size_mb', 'must be >= 0.001');
    refusedAt(withRotate('max_size_mb: 1e12'), 'audit.rotate.max_size_mb', 'must be <= 1048576');
    loads(withRotate('max_size_mb: 0.001'));
    loads(withRotate('max_size_mb: 1'));
    loads(withRotate('max_size_mb: 1.5'));
    loads(withRotate('max_size_mb: 1048576'));
  });

  it('caps the memory store at 10 million records and 64 GiB', () => {
    const state = (key: string, value: number) => withBlock(`state: { ${key}: ${value} }`);
    for (const key of ['max_memory_evaluations', 'max_memory_idempotency_records']) {
      refusedAt(state(key, 10_000_001), `state.${key}`, 'must be <= 10000000');
      loads(state(key, 10_000_000));
    }
    for (const key of ['max_memory_evaluation_bytes', 'max_memory_idempotency_bytes']) {
      refusedAt(state(key, 64 * 1024 * MIB + 1), `state.${key}`, 'must be <= 68719476736');
      loads(state(key, 64 * 1024 * MIB));
    }
  });

  it('caps the CEL input and result sizes at 1 MiB', () => {
    // The inputs are copied to a worker as JSON text, and parsed there, for every evaluation.
    for (const key of ['max_binding_json_bytes', 'max_result_json_bytes']) {
      refusedAt(withBlock(`cel: { ${key}: ${MIB + 1} }`), `cel.${key}`, `must be <= ${MIB}`);
      loads(withBlock(`cel: { ${key}: ${MIB} }`));
    }
  });

  it('caps the credential validity at three years', () => {
    const max = 3 * 365 * 86_400;
    refusedAt(
      withEvidence(`max_credential_validity_seconds: ${max + 1}`),
      'evidence.max_credential_validity_seconds',
      `must be <= ${max}`,
    );
    loads(withEvidence(`max_credential_validity_seconds: ${max}`));
  });

  it('caps the connections a listener holds at one million', () => {
    const text = (value: number) => withBlock(`server: { max_connections: ${value} }`);
    refusedAt(text(1_000_001), 'server.max_connections', 'must be <= 1000000');
    loads(text(1_000_000));
  });

  it('refuses an empty api_version: discovery would name no version', () => {
    refusedAt(withEvidence('api_version: ""'), 'evidence.api_version', 'must not be empty');
    refusedAt(
      withEvidence(`api_version: ${'v'.repeat(65)}`),
      'evidence.api_version',
      'must be at most 64 characters',
    );
    loads(withEvidence(`api_version: ${'v'.repeat(64)}`));
  });

  it('limits the length of names, texts and addresses the verifier shows', () => {
    /** `value(n)`: a valid value of exactly n characters. */
    const x = (n: number) => 'x'.repeat(n);
    const url = (n: number) => `https://v.example/${x(n - 18)}`;
    const cases: [
      text: (value: string) => string,
      value: (n: number) => string,
      path: string,
      max: number,
    ][] = [
      [(v) => BASE.replace('service_id: test.verifier', `service_id: ${v}`), x, 'evidence.service_id', 256],
      [(v) => BASE.replace('title: Alive', `title: ${v}`), x, 'evidence.claims.0.title', 512],
      [(v) => withClaimKey(`description: ${v}`), x, 'evidence.claims.0.description', 4096],
      [
        (v) => BASE.replace('value: { type: boolean }', `value: { type: boolean, unit: ${v} }`),
        x,
        'evidence.claims.0.value.unit',
        64,
      ],
      [
        (v) => withClaimKey(`cccev: { evidence_type: ${v} }`),
        x,
        'evidence.claims.0.cccev.evidence_type',
        512,
      ],
      [
        (v) => withClaimKey(`cccev: { requirement: "${v}" }`),
        url,
        'evidence.claims.0.cccev.requirement',
        2048,
      ],
      [(v) => withEvidence(`api_base_url: "${v}"`), url, 'evidence.api_base_url', 2048],
      [
        (v) => BASE.replace('base_url: "http://127.0.0.1:4242"', `base_url: "${v}"`),
        url,
        'evidence.source_connections.relay.base_url',
        2048,
      ],
      [(v) => withBlock(`instance: { id: ${v} }`), x, 'instance.id', 256],
      [(v) => withBlock(`instance: { environment: ${v} }`), x, 'instance.environment', 256],
      [
        (v) => BASE.replace('audit: { sink: stdout', `audit: { sink: file, path: ${v}`),
        x,
        'audit.path',
        4096,
      ],
    ];
    for (const [text, value, path, max] of cases) {
      refusedAt(text(value(max + 1)), path, `must be at most ${max} characters`);
      loads(text(value(max)));
    }
  });

  it('limits ids, mapping keys and the relay names a binding reads to 128 characters, as claim ids are', () => {
    const id = (n: number) => `k${'x'.repeat(n - 1)}`;
    const connection = (v: string) =>
      BASE.replace('    relay: {', `    ${v}: {`).replace('connection: relay', `connection: ${v}`);
    const alias = (v: string) =>
      BASE.replace('        p:', `        ${v}:`).replace('source.p.', `source.${v}.`);
    const ID = 'must be at most 128 characters';
    const KEY = `key ${ID}`;
    const cases: [text: (value: string) => string, path: (value: string) => string, message: string][] = [
      [(v) => BASE.replace('- { id: caller,', `- { id: ${v},`), () => 'auth.api_keys.0.id', ID],
      [connection, (v) => `evidence.source_connections.${v}`, KEY],
      [alias, (v) => `evidence.claims.0.source_bindings.${v}`, KEY],
      [(v) => issuing(v, 'k1'), () => 'evidence.claims.0.credential_profiles.0', ID],
      [(v) => issuing(v, 'k1'), (v) => `evidence.credential_profiles.${v}`, KEY],
      [(v) => issuing('p1', v), () => 'evidence.credential_profiles.p1.signing_key', ID],
      [(v) => issuing('p1', v), (v) => `evidence.signing_keys.${v}`, KEY],
      // The relay names a binding reads: no relay declares a longer dataset id or entity name.
      [(v) => BASE.replace('dataset: civil_registry', `dataset: ${v}`), () => `${BINDING}.dataset`, ID],
      [(v) => BASE.replace('entity: persons', `entity: ${v}`), () => `${BINDING}.entity`, ID],
    ];
    const env = SIGNING_ENV;
    for (const [text, path, message] of cases) {
      const over = id(129);
      assert.deepEqual(
        issuesAt(text(over), path(over), env),
        [{ code: 'config.validation_error', message }],
        path(over),
      );
      assert.doesNotThrow(() => loadVerifierConfigText(text(id(128)), env, '/tmp'), path(''));
    }
  });

  it('limits scope names to 256 characters', () => {
    const scope = (n: number) => `civil:${'x'.repeat(n - 6)}`;
    const text = (v: string) => BASE.replace('scopes: [civil:evidence]', `scopes: [civil:evidence, ${v}]`);
    refusedAt(text(scope(257)), 'auth.api_keys.0.scopes.1', 'must be at most 256 characters');
    loads(text(scope(256)));
  });

  it('caps the lists a claim or key holds, so an absurd config is refused rather than slowing start-up', () => {
    const list = (n: number, item: (i: number) => string) =>
      `[${Array.from({ length: n }, (_, i) => item(i)).join(', ')}]`;
    const scopes = (n: number) => list(n, (i) => `s:${i}`);
    const purposes = (n: number) => list(n, (i) => `p${i}`);
    const cases: [text: (n: number) => string, path: string, max: number][] = [
      [
        (n) => BASE.replace('scopes: [civil:evidence]', `scopes: ${scopes(n)}`),
        'auth.api_keys.0.scopes',
        1000,
      ],
      [(n) => withClaimKey(`required_scopes: ${scopes(n)}`), 'evidence.claims.0.required_scopes', 1000],
      [(n) => withEvidence(`allowed_purposes: ${purposes(n)}`), 'evidence.allowed_purposes', 1000],
    ];
    for (const [text, path, max] of cases) {
      refusedAt(text(max + 1), path, `must list at most ${max} items`);
      loads(text(max));
    }
  });

  it('caps a claim at 64 sub-claims and a config at 10,000 claims', () => {
    // Built as parsed values: YAML for thousands of claims would take seconds to read.
    const withSubClaims = (n: number, dependsOn: boolean) => {
      const raw = parseConfigText(BASE, ENV) as { evidence: { claims: Record<string, unknown>[] } };
      const ids = Array.from({ length: n }, (_, i) => `c${i}`);
      for (const id of ids) {
        raw.evidence.claims.push({ id, title: 'C', version: '1', subject_type: 'person', rule: CEL_TRUE });
      }
      if (dependsOn) Object.assign(raw.evidence.claims[0] as object, { depends_on: ids });
      return raw;
    };
    const valueIssues = (raw: unknown) => {
      try {
        loadVerifierConfigValue(raw, ENV, '/tmp');
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        return error.issues.map(({ path, code, message }) => ({ path, code, message }));
      }
      return [];
    };
    const tooMany = (path: string, max: number) => [
      { path, code: 'config.validation_error', message: `must list at most ${max} items` },
    ];
    assert.deepEqual(valueIssues(withSubClaims(65, true)), tooMany('evidence.claims.0.depends_on', 64));
    assert.deepEqual(valueIssues(withSubClaims(64, true)), []);
    assert.deepEqual(valueIssues(withSubClaims(10_000, false)), tooMany('evidence.claims', 10_000));
    assert.deepEqual(valueIssues(withSubClaims(9_999, false)), []);
    // A profile may offer every claim there can be, and no more (the same claim listed again is refused on its own).
    const offering = (n: number) => issuing('p1', 'k1', `[${Array(n).fill('alive').join(', ')}]`);
    const allowed = 'evidence.credential_profiles.p1.allowed_claims';
    assert.deepEqual(issuesAt(offering(10_001), allowed, SIGNING_ENV), [
      { code: 'config.validation_error', message: 'must list at most 10000 items' },
    ]);
    assert.deepEqual(issuesAt(offering(10_000), allowed, SIGNING_ENV), []);
  });
});
