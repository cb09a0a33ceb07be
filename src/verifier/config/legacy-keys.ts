// Keys of earlier verifier configs that no longer load, each refused with how to move on.
export const LEGACY_KEYS = [
  {
    at: 'auth.api_keys.*',
    key: 'hash_env',
    message: '`hash_env` moved to `fingerprint: {provider: env, name}`',
  },
  { at: 'auth.api_keys.*', key: 'token_env', message: 'raw tokens are not accepted: use `fingerprint`' },
  {
    at: 'auth.bearer_tokens.*',
    key: 'hash_env',
    message: '`hash_env` moved to `fingerprint: {provider: env, name}`',
  },
  {
    at: 'auth.bearer_tokens.*',
    key: 'token_env',
    message: 'raw tokens are not accepted: use `fingerprint`',
  },
  {
    at: 'evidence.source_connections.*',
    key: 'retry_on_5xx',
    message: 'use `retry.max_attempts` (1 disables)',
  },
  ...(['api_keys', 'bearer_tokens'] as const).map((list) => ({
    at: `auth.${list}.*`,
    key: 'authorization_details',
    message:
      "not supported: what a credential may evaluate is set by its `scopes` (and the claims' `required_scope`)",
  })),
  // Reference keys named otherwise here.
  {
    at: 'server',
    key: 'admin_listener',
    message: 'use `server.admin_bind` (host:port of the admin listener, always a separate one)',
  },
  {
    at: 'server',
    key: 'trusted_proxy_ips',
    message: 'use `server.trust_proxy` (`enabled: true`, `trusted_proxies`: addresses or CIDR ranges)',
  },
  ...(['max_size_mb', 'max_files'] as const).map((key) => ({
    at: 'audit',
    key,
    message: `use \`audit.rotate\` (\`rotate: {${key}}\`, with the file sink)`,
  })),
  {
    at: 'audit',
    key: 'syslog_socket_path',
    message: 'there is no syslog sink: use `sink: stdout`, `file` or `jsonl`',
  },
  {
    at: 'instance',
    key: 'public_base_url',
    message: 'use `evidence.api_base_url`, which discovery and the OpenAPI document publish',
  },
  ...(['owner', 'jurisdiction'] as const).map((key) => ({
    at: 'instance',
    key,
    message: 'not kept: `instance` holds `id` and `environment` only',
  })),
  {
    at: 'auth.oidc',
    key: 'allow_insecure_localhost',
    message:
      'use `allow_dev_insecure_fetch_urls` (plain http to loopback issuers and key sets, for development)',
  },
  {
    at: 'auth.oidc',
    key: 'principal_claim',
    message: "not configurable: the caller is the token's `sub` (or, without one, its `client_id` or `azp`)",
  },
  {
    at: 'auth.oidc',
    key: 'scope_separator',
    message:
      'not configurable: a string scope claim is split on spaces (a list is read as it is); rename scopes with `scope_map`',
  },
  ...(['userinfo_endpoint', 'userinfo_issuers'] as const).map((key) => ({
    at: 'auth.oidc',
    key,
    message: 'not supported: scopes and the caller are read from the access token itself',
  })),
  // Reference features not built here: said so, rather than "unknown key" or a "did you mean" to another setting.
  ...(['config_trust', 'credential_status', 'self_attestation', 'oid4vci', 'federation'] as const).map(
    (key) => ({ at: '', key, message: 'not built in this verifier: remove the block' }),
  ),
  {
    at: 'evidence',
    key: 'ecosystem_bindings',
    message: 'not supported (no matching policies): remove the block',
  },
  {
    at: 'evidence.claims.*.source_bindings.*',
    key: 'matching',
    message:
      'matching policies are not supported: a claim is gated by `required_scope`, the claim `purpose` and `evidence.allowed_purposes`; the disclosure by `disclosure`',
  },
  {
    at: 'evidence.claims.*.source_bindings.*',
    key: 'query_fields',
    message: 'not supported: a binding reads one record by one equality `lookup {input, field}`',
  },
  ...(['semantics', 'oots'] as const).map((key) => ({
    at: 'evidence.claims.*',
    key,
    message:
      'not supported: the CCCEV rendering takes its terms from `cccev` (`requirement`, `evidence_type_iri`)',
  })),
  {
    at: 'evidence.claims.*.rule.bindings',
    key: 'vars',
    message: 'not supported: write constant values into the expression',
  },
  {
    at: 'evidence.claims.*.rule.bindings.claims.*',
    key: 'binding_type',
    message: 'not needed: a dependency is typed by its own `value.type`, which its result is checked against',
  },
  // Keys of the reference verifier contract with no use here: named, so that the message says what to write
  // instead rather than "unknown key" (or a "did you mean" pointing at another setting).
  {
    at: 'evidence.source_connections.*',
    key: 'bulk_timeout_max_ms',
    message: 'use `timeout` (a duration such as `30s`): it bounds each attempt, bulk `.in` reads included',
  },
  {
    at: '',
    key: 'replay',
    message:
      'there is no replay store to configure: evaluations and idempotency records are kept by `state` (`storage: memory` or `postgresql`)',
  },
  {
    at: '',
    key: 'deployment',
    message: 'deployment profiles and waivers are not supported: remove the block',
  },
  ...(['claims_url', 'formats_url'] as const).map((key) => ({
    at: 'evidence',
    key,
    message: `discovery URLs are not configurable: they are \`api_base_url\` followed by /v1/${key.slice(0, -4)}`,
  })),
  // Connectors and settings of the reference contract beyond relay reads, and blocks of its later versions.
  {
    at: 'evidence.source_connections.*',
    key: 'dci',
    message:
      'the SP-DCI connector is not supported: a connection reads a relay (`connector: registry_data_api`)',
  },
  {
    at: 'evidence.source_connections.*',
    key: 'expected_sidecar',
    message:
      'the source-adapter sidecar is not supported: a connection reads a relay (`connector: registry_data_api`)',
  },
  {
    at: 'evidence.source_connections.*',
    key: 'source_auth',
    message:
      'not supported (no OAuth client credentials): the connection sends the bearer token held in `token_env`',
  },
  {
    at: 'evidence.claims.*',
    key: 'evidence_mode',
    message:
      'not supported: a claim reads relays through its `source_bindings` (`connector: registry_data_api`), gated by `required_scope`',
  },
  {
    at: 'auth',
    key: 'access_token_signing',
    message: 'not built in this verifier (no OID4VCI): remove the block',
  },
  { at: '', key: 'subject_access', message: 'not built in this verifier: remove the block' },
  ...(['module_path', 'token_label', 'pin_env', 'key_label', 'key_id_hex'] as const).map((key) => ({
    at: 'evidence.signing_keys.*',
    key,
    message: 'PKCS#11 keys are not supported: use `provider: local_jwk_env` or `file_watch`',
  })),
  {
    at: 'evidence.signing_keys.*',
    key: 'publish_until_unix_seconds',
    message:
      'not supported (a publication does not end by date): remove it, and set `status: disabled` when the key is no longer to be published',
  },
  ...(['issuer_key_env', 'issuer_kid'] as const).map((key) => ({
    at: 'evidence.credential_profiles.*',
    key,
    message:
      'moved to `evidence.signing_keys` (`provider: local_jwk_env`, `private_jwk_env`, `kid`), named by the profile `signing_key`',
  })),
  ...(['api_keys', 'bearer_tokens'] as const).map((list) => ({
    at: `auth.${list}.*.fingerprint`,
    key: 'path',
    message:
      'fingerprints are read from the environment only: put it in a variable and name that with `provider: env` and `name`',
  })),
  {
    at: 'evidence.claims.*.cccev',
    key: 'requirement_type',
    message: 'use `requirement` (the IRI of the requirement, the @id of the CCCEV rendering)',
  },
  { at: 'cel', key: 'eval_timeout_ms', message: 'use `eval_timeout` (a duration such as `2s`)' },
  { at: 'cel', key: 'worker_memory_bytes', message: 'use `worker_memory_mb` (mebibytes)' },
  ...(
    [
      'mode',
      'queue_max',
      'allow_regex',
      'max_string_bytes',
      'max_list_items',
      'max_object_depth',
      'max_object_keys',
      'worker_stderr_bytes',
    ] as const
  ).map((key) => ({
    at: 'cel',
    key,
    message:
      'not configurable: CEL is always on, and bounded by `eval_timeout`, `max_expression_bytes`, `max_binding_json_bytes` and `max_result_json_bytes` (docs/verifier.md)',
  })),
] as const;
