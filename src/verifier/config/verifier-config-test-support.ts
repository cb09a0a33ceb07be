// Shared by the verifier config tests: a minimal config, the environment it reads, a failed load's issues.
import assert from 'node:assert/strict';
import { fingerprintOf } from '../../platform/auth/api-key.ts';
import { ConfigError } from '../../platform/config/config-error.ts';
import { issuesAtPath } from '../../platform/config/config-issues-test-support.ts';
import { loadVerifierConfigText } from './load-verifier-config.ts';

export const ENV = {
  CALLER_HASH: fingerprintOf('caller-key'),
  AUDIT_SECRET: 'a'.repeat(32),
  RELAY_TOKEN: 'relay-token',
};

const HEAD = `
auth:
  mode: api_key
  api_keys:
    - { id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [civil:evidence] }
audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }
evidence:
  service_id: test.verifier
  source_connections:`;

/** A config with one source connection `relay` (its settings as YAML flow members) and no claims. */
export const connectionConfig = (connection: string): string => `${HEAD}
    relay: { ${connection} }
  claims: []
`;

export const BASE = `${HEAD}
    relay: { base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN, allow_insecure_localhost: true }
  claims:
    - id: alive
      title: Alive
      version: "1"
      subject_type: person
      value: { type: boolean }
      source_bindings:
        p:
          connector: registry_data_api
          connection: relay
          required_scope: civil:evidence
          dataset: civil_registry
          entity: persons
          lookup: { input: target.identifiers.national_id, field: national_id }
          fields: [deceased]
      rule: { type: cel, expression: "!source.p.deceased" }
      disclosure: { default: predicate, allowed: [predicate, redacted] }
`;

/** The issues a load of `text` reports at `path` (none when it loads). */
export function issuesAt(
  text: string,
  path: string,
  env: Record<string, string> = ENV,
): { code: string; message: string }[] {
  return issuesAtPath(() => loadVerifierConfigText(text, env, '/tmp'), path);
}

export function issuesOf(
  text: string,
  env: Record<string, string> = ENV,
): { path: string; code: string; message: string }[] {
  try {
    loadVerifierConfigText(text, env, '/tmp');
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return [...error.issues];
  }
  assert.fail('expected a ConfigError');
}
