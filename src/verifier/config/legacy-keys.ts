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
] as const;
