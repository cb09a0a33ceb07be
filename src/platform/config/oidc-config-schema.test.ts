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

describe('auth.oidc bounds', () => {
  const x = (n: number) => 'x'.repeat(n);
  const list = (n: number, item: (i: number) => string = (i) => `v${i}`) =>
    Array.from({ length: n }, (_, i) => item(i));
  const refused = (raw: Record<string, unknown>, path: string, message: string) =>
    assert.deepEqual(
      issuesOf(raw).map((issue) => [issue.path, issue.code, issue.message]),
      [[path, 'config.validation_error', message]],
      path,
    );
  const accepted = (raw: Record<string, unknown>) => assert.deepEqual(issuesOf(raw), []);

  it('limits the length of audiences, clients, token types, scope names and addresses', () => {
    const url = (n: number) => `https://idp.example.org/${x(n - 24)}`;
    const cases: [
      raw: (value: string) => Record<string, unknown>,
      path: string,
      value: (n: number) => string,
      max: number,
    ][] = [
      [(v) => ({ audiences: [v] }), 'audiences.0', x, 2048],
      [(v) => ({ allowed_clients: [v] }), 'allowed_clients.0', x, 2048],
      [(v) => ({ allowed_token_types: [v] }), 'allowed_token_types.0', x, 128],
      [(v) => ({ scope_claim: v }), 'scope_claim', x, 256],
      [(v) => ({ scope_map: { role: v } }), 'scope_map.role', x, 256],
      [(v) => ({ scope_map: { role: ['a:rows', v] } }), 'scope_map.role.1', x, 256],
      [(v) => ({ issuer: v }), 'issuer', url, 2048],
      [(v) => ({ jwks_url: v }), 'jwks_url', url, 2048],
    ];
    for (const [raw, path, value, max] of cases) {
      refused(raw(value(max + 1)), path, `must be at most ${max} characters`);
      accepted(raw(value(max)));
    }
    const key = x(257);
    refused({ scope_map: { [key]: 'a:rows' } }, `scope_map.${key}`, 'key must be at most 256 characters');
    accepted({ scope_map: { [x(256)]: 'a:rows' } });
  });

  it('caps how many audiences, clients, token types and scope mappings it lists', () => {
    const cases: [raw: (n: number) => Record<string, unknown>, path: string, max: number][] = [
      [(n) => ({ audiences: list(n) }), 'audiences', 1000],
      [(n) => ({ allowed_clients: list(n) }), 'allowed_clients', 1000],
      [(n) => ({ allowed_token_types: list(n) }), 'allowed_token_types', 16],
      [(n) => ({ scope_map: { role: list(n) } }), 'scope_map.role', 1000],
    ];
    for (const [raw, path, max] of cases) {
      refused(raw(max + 1), path, `must list at most ${max} items`);
      accepted(raw(max));
    }
    const map = (n: number) => Object.fromEntries(list(n).map((name) => [name, 'a:rows']));
    refused({ scope_map: map(1001) }, 'scope_map', 'must map at most 1000 scope names');
    accepted({ scope_map: map(1000) });
  });
});
