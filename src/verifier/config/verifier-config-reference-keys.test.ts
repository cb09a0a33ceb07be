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
