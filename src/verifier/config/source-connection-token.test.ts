import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../platform/auth/api-key.ts';
import { ConfigError } from '../../platform/config/config-error.ts';
import { loadVerifierConfigText } from './load-verifier-config.ts';

const CONFIG = `
auth:
  mode: api_key
  api_keys:
    - { id: caller, fingerprint: { provider: env, name: CALLER_HASH }, scopes: [civil:evidence] }
audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }
evidence:
  service_id: test.verifier
  source_connections:
    relay: { base_url: "https://relay.example", token_env: RELAY_TOKEN }
  claims: []
`;

function tokenIssues(token: string): { code: string; message: string }[] {
  const env = { CALLER_HASH: fingerprintOf('caller-key'), AUDIT_SECRET: 'a'.repeat(32), RELAY_TOKEN: token };
  try {
    loadVerifierConfigText(CONFIG, env, '/tmp');
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.issues
      .filter((issue) => issue.path === 'evidence.source_connections.relay.token_env')
      .map(({ code, message }) => ({ code, message }));
  }
  return [];
}

describe('a source connection token', () => {
  it('loads when it can be sent as a bearer token as it is (surrounding blanks trimmed)', () => {
    assert.deepEqual(tokenIssues('abc.DEF-123_~+/='), []);
    assert.deepEqual(tokenIssues('  abc.DEF-123\n'), []);
  });

  it('is refused at load, without echoing it, when a header cannot carry it as one token', () => {
    for (const token of [
      'first-line\nsecond-line',
      'two words',
      'tab\there',
      'caf\u00e9-token',
      'euro\u20ac',
    ]) {
      const issues = tokenIssues(token);
      assert.deepEqual(
        issues,
        [
          {
            code: 'config.validation_error',
            message:
              'RELAY_TOKEN must hold one bearer token: visible ASCII characters, no spaces or line breaks',
          },
        ],
        JSON.stringify(token),
      );
    }
  });
});
