// Keys of the reference verifier contract this verifier has no use for: each is refused with what to write instead,
// never with a bare "unknown key" (nor a "did you mean" that would change another setting).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, connectionConfig, ENV, issuesOf } from './verifier-config-test-support.ts';

function messagesOf(text: string): Map<string, string> {
  return new Map(issuesOf(text).map((issue) => [issue.path, `${issue.code}: ${issue.message}`]));
}

describe('reference verifier keys', () => {
  it('points the reference top-level blocks without a counterpart to what replaces them', () => {
    const messages = messagesOf(`${BASE}\nreplay: { storage: in_memory }\ndeployment: { profile: local }\n`);
    assert.match(messages.get('replay') ?? '', /^config\.parse_error: .*`state`/);
    assert.match(messages.get('deployment') ?? '', /^config\.parse_error: .*deployment profiles/);
  });

  it('points the reference discovery URLs to `api_base_url`', () => {
    const text = BASE.replace(
      '  service_id: test.verifier\n',
      '  service_id: test.verifier\n  claims_url: /v1/claims\n  formats_url: /v1/formats\n',
    );
    const messages = messagesOf(text);
    for (const key of ['claims_url', 'formats_url']) {
      assert.match(messages.get(`evidence.${key}`) ?? '', /^config\.parse_error: .*`api_base_url`/);
    }
  });

  it('names the CEL keys that differ by unit, and says the other reference CEL limits are fixed', () => {
    const messages = messagesOf(
      `${BASE}\ncel: { mode: worker, eval_timeout_ms: 2000, worker_memory_bytes: 134217728, queue_max: 0, allow_regex: false, max_list_items: 1024 }\n`,
    );
    assert.match(messages.get('cel.eval_timeout_ms') ?? '', /use `eval_timeout`/);
    assert.match(messages.get('cel.worker_memory_bytes') ?? '', /use `worker_memory_mb`/);
    for (const key of ['mode', 'queue_max', 'allow_regex', 'max_list_items']) {
      assert.match(messages.get(`cel.${key}`) ?? '', /^config\.parse_error: .*not configurable/, key);
    }
  });

  it('points a connection bulk_timeout_max_ms to `timeout`', () => {
    const messages = messagesOf(
      connectionConfig(
        'base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN, allow_insecure_localhost: true, bulk_timeout_max_ms: 30000',
      ),
    );
    assert.match(messages.get('evidence.source_connections.relay.bulk_timeout_max_ms') ?? '', /`timeout`/);
  });

  it('reads the reference listener time-outs with their meaning', () => {
    const { config } = loadVerifierConfigText(
      `${BASE}\nserver: { request_timeout: 30s, http1_header_read_timeout: 5s, request_body_timeout: 20s }\n`,
      ENV,
      '/tmp',
    );
    assert.equal(config.server.http1_header_read_timeout, 5_000);
    assert.equal(config.server.request_body_timeout, 20_000);
    const messages = messagesOf(
      `${BASE}\nserver: { http1_header_read_timeout: 0s, request_body_timeout: 2h }\n`,
    );
    assert.match(messages.get('server.http1_header_read_timeout') ?? '', /out of range/);
    assert.match(messages.get('server.request_body_timeout') ?? '', /out of range/);
  });

  it('points reference keys that have another name here to that name', () => {
    const text = BASE.replace(
      '    - { id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [civil:evidence] }\n',
      '    - { id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [civil:evidence], authorization_details: [] }\n',
    ).replace(
      'audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }',
      'audit: { sink: file, path: audit.jsonl, hash_secret_env: AUDIT_SECRET, max_size_mb: 100, max_files: 14 }',
    );
    const messages = messagesOf(
      `${text}\nserver: { admin_listener: { mode: separate, bind: 127.0.0.1:8082 }, trusted_proxy_ips: [10.0.0.1] }\ninstance: { id: v1, public_base_url: https://v.example }\n`,
    );
    const expected: Record<string, RegExp> = {
      'server.admin_listener': /`server\.admin_bind`/,
      'server.trusted_proxy_ips': /`server\.trust_proxy`/,
      'audit.max_size_mb': /`audit\.rotate`/,
      'audit.max_files': /`audit\.rotate`/,
      'auth.api_keys.0.authorization_details': /`scopes`/,
      'instance.public_base_url': /`evidence\.api_base_url`/,
    };
    for (const [path, pattern] of Object.entries(expected)) {
      assert.match(messages.get(path) ?? '', pattern, path);
      assert.doesNotMatch(messages.get(path) ?? '', /unknown key/, path);
    }
  });

  it('names the OIDC reference keys with what this verifier does instead', () => {
    const text = BASE.replace(
      /auth:\n {2}mode: api_key\n {2}api_keys:\n.*\n/,
      'auth:\n  mode: oidc\n  oidc: { issuer: http://127.0.0.1:9000, jwks_url: http://127.0.0.1:9000/jwks, audiences: [v], allow_insecure_localhost: true, principal_claim: sub, scope_separator: " ", userinfo_endpoint: https://idp.example/ui }\n',
    );
    const messages = messagesOf(text);
    assert.match(messages.get('auth.oidc.allow_insecure_localhost') ?? '', /`allow_dev_insecure_fetch_urls`/);
    assert.match(messages.get('auth.oidc.principal_claim') ?? '', /`sub`/);
    assert.match(messages.get('auth.oidc.scope_separator') ?? '', /space/);
    assert.match(messages.get('auth.oidc.userinfo_endpoint') ?? '', /not/);
  });

  it('says that reference features with policy gates are not built, rather than "unknown key"', () => {
    const text = BASE.replace(
      '          fields: [deceased]\n',
      '          fields: [deceased]\n          matching: { allowed_purposes: [p] }\n',
    );
    const messages = messagesOf(
      `${text}\nself_attestation: { enabled: true }\noid4vci: { enabled: false }\nfederation: {}\ncredential_status: {}\nconfig_trust: {}\n`,
    );
    for (const path of [
      'evidence.claims.0.source_bindings.p.matching',
      'self_attestation',
      'oid4vci',
      'federation',
      'credential_status',
      'config_trust',
    ]) {
      assert.match(messages.get(path) ?? '', /^config\.parse_error: .*not (built|supported)/, path);
    }
  });

  it('says what a reference projection mapping and CEL rule bindings become', () => {
    const text = BASE.replace(
      '          fields: [deceased]\n',
      '          fields: { dead: { field: deceased, required: true } }\n',
    )
      .replace(
        '    - id: alive\n',
        '    - id: base\n      title: Base\n      version: "1"\n      subject_type: person\n      rule: { type: cel, expression: "true" }\n    - id: alive\n      depends_on: [base]\n',
      )
      .replace(
        'rule: { type: cel, expression: "!source.p.deceased" }',
        'rule: { type: cel, expression: "!source.p.deceased && claims.b.value", bindings: { claims: { b: { claim: base, binding_type: boolean } }, vars: { x: 1 } } }',
      );
    const messages = messagesOf(text);
    assert.match(messages.get('evidence.claims.1.source_bindings.p.fields') ?? '', /list of field names/);
    assert.match(messages.get('evidence.claims.1.rule.bindings.vars') ?? '', /into the expression/);
    assert.match(
      messages.get('evidence.claims.1.rule.bindings.claims.b.binding_type') ?? '',
      /`value\.type`/,
    );
  });
});

describe('reference verifier keys without a bare "unknown key"', () => {
  const noBareUnknown = (messages: Map<string, string>, expected: Record<string, RegExp>) => {
    for (const [path, pattern] of Object.entries(expected)) {
      const message = messages.get(path) ?? '';
      assert.match(message, pattern, path);
      assert.doesNotMatch(message, /unknown key|did you mean/, path);
    }
  };

  it('says there is no syslog audit sink, and what to use', () => {
    const messages = messagesOf(
      BASE.replace(
        'audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }',
        'audit: { sink: syslog, hash_secret_env: AUDIT_SECRET }',
      ),
    );
    noBareUnknown(messages, { 'audit.sink': /no syslog sink.*`stdout`/ });
  });

  it('says that other connectors, their connection settings and retirement-era blocks are not supported', () => {
    const text = BASE.replace(
      'relay: { base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN, allow_insecure_localhost: true }',
      'relay: { base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN, allow_insecure_localhost: true, bulk_mode: dci_batched_search, dci: { search_path: /registry/sync/search }, expected_sidecar: {}, source_auth: { type: oauth2_client_credentials } }',
    )
      .replace('          connector: registry_data_api\n', '          connector: dci\n')
      .replace(
        '      subject_type: person\n',
        '      subject_type: person\n      evidence_mode: { type: registry_backed }\n',
      );
    const messages = messagesOf(
      `${text.replace('auth:\n  mode: api_key\n', 'auth:\n  mode: api_key\n  access_token_signing: { enabled: false }\n')}\nsubject_access: { enabled: false }\n`,
    );
    noBareUnknown(messages, {
      'evidence.source_connections.relay.bulk_mode': /not supported.*`rda_in_filter`/,
      'evidence.source_connections.relay.dci': /SP-DCI.*not supported/,
      'evidence.source_connections.relay.expected_sidecar': /sidecar.*not supported/,
      'evidence.source_connections.relay.source_auth': /not supported.*`token_env`/,
      'evidence.claims.0.source_bindings.p.connector': /SP-DCI.*not supported.*`registry_data_api`/,
      'evidence.claims.0.evidence_mode': /not supported.*`source_bindings`/,
      'auth.access_token_signing': /not built/,
      subject_access: /not built/,
    });
  });

  it('names the signing settings to use instead of PKCS#11, RS256 and the early profile key fields', () => {
    const text = `${BASE}  signing_keys:
    k1: { provider: pkcs11, alg: RS256, kid: "did:web:v.example#k1", module_path: /lib/p.so, token_label: t, pin_env: PIN, key_label: k, key_id_hex: "01", publish_until_unix_seconds: 1900000000 }
  credential_profiles:
    p1: { format: application/dc+sd-jwt, issuer: "did:web:v.example", signing_key: k1, vct: https://v.example/vct, allowed_claims: [alive], issuer_key_env: ISSUER_JWK, issuer_kid: "did:web:v.example#k1" }
`;
    const messages = messagesOf(text);
    const keyPath = 'evidence.signing_keys.k1';
    noBareUnknown(messages, {
      [`${keyPath}.provider`]: /PKCS#11.*`local_jwk_env` or `file_watch`/,
      [`${keyPath}.alg`]: /`EdDSA` or `ES256`/,
      [`${keyPath}.module_path`]: /PKCS#11/,
      [`${keyPath}.key_id_hex`]: /PKCS#11/,
      [`${keyPath}.publish_until_unix_seconds`]: /`status: disabled`/,
      'evidence.credential_profiles.p1.issuer_key_env': /`evidence\.signing_keys`/,
      'evidence.credential_profiles.p1.issuer_kid': /`evidence\.signing_keys`/,
    });
  });

  it('points a fingerprint file to an environment variable', () => {
    const messages = messagesOf(
      BASE.replace(
        'fingerprint: { provider: env, name: CALLER_HASH }',
        'fingerprint: { provider: env, name: CALLER_HASH, path: /run/secrets/caller }',
      ),
    );
    noBareUnknown(messages, { 'auth.api_keys.0.fingerprint.path': /environment only.*`name`/ });
  });

  it('names the value types the reference spelled otherwise, and `cccev.requirement`', () => {
    const expected: Record<string, RegExp> = {
      bool: /`boolean`/,
      int: /`integer`/,
      double: /`number`/,
      list: /`array`/,
      unknown: /`any`/,
      'date-time': /`string`/,
      null: /`any`/,
    };
    for (const [type, pattern] of Object.entries(expected)) {
      const messages = messagesOf(
        BASE.replace('value: { type: boolean }', `value: { type: "${type}" }`).replace(
          'disclosure: { default: predicate, allowed: [predicate, redacted] }',
          'disclosure: { default: redacted, allowed: [redacted] }',
        ),
      );
      noBareUnknown(messages, { 'evidence.claims.0.value.type': pattern });
    }
    const messages = messagesOf(
      BASE.replace(
        '      subject_type: person\n',
        '      subject_type: person\n      cccev: { requirement_type: https://x.example/r }\n',
      ),
    );
    noBareUnknown(messages, { 'evidence.claims.0.cccev.requirement_type': /use `requirement`/ });
  });

  it('says which lookup inputs are read, naming requester and dependent inputs as not supported', () => {
    const messages = messagesOf(BASE.replace('input: target.identifiers.national_id', 'input: requester.id'));
    noBareUnknown(messages, {
      'evidence.claims.0.source_bindings.p.lookup.input': /target\.id.*requester.*not supported/,
    });
  });
});
