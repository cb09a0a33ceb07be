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
