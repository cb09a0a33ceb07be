// The `auth.oidc` block both services share: what its messages tell an operator about a wrong value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, type ConfigIssue } from './config-error.ts';
import { oidcConfigSchema } from './oidc-config-schema.ts';
import { validateConfig } from './validate-config.ts';

const BLOCK = {
  issuer: 'https://idp.example.org',
  audiences: ['ambit-relay'],
  jwks_url: 'https://idp.example.org/jwks',
};

function issuesOf(raw: Record<string, unknown>): readonly ConfigIssue[] {
  try {
    validateConfig(oidcConfigSchema, { ...BLOCK, ...raw });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.issues;
  }
  return [];
}

describe('auth.oidc config block', () => {
  it('says what a scope_map entry must be, not only that it is invalid', () => {
    const issues = issuesOf({ scope_map: { admin: 1, viewer: [2], ok: ['a:rows'], also: 'a:metadata' } });
    assert.deepEqual(
      issues.map((issue) => [issue.path, issue.message]),
      [
        ['scope_map.admin', 'must be a scope name or a list of scope names'],
        ['scope_map.viewer', 'must be a scope name or a list of scope names'],
      ],
    );
  });
});
