// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write config text with ${VAR} references.
// Variable names the config chooses are looked up as the environment's own entries, never as members every object
// inherits (`constructor`, `toString`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import type { ConfigIssue } from '../../src/platform/config/config-error.ts';
import { parseConfigText } from '../../src/platform/config/load-config-file.ts';
import { parseEnvLines } from '../../src/platform/config/read-env-file.ts';
import { readSecretEnv } from '../../src/platform/config/read-secret-env.ts';
import { refusalIssues } from '../../src/platform/config/refusal-issues.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import {
  BASE,
  ENV,
  issuesOf as verifierIssuesOf,
} from '../../src/verifier/config/verifier-config-test-support.ts';

const VALID = fileURLToPath(new URL('./valid/', import.meta.url));

const issuesOf = refusalIssues;

describe('variable names that are members of every object', () => {
  it('are unset in ${VAR} references, so defaults and messages apply', () => {
    assert.deepEqual(parseConfigText('a: ${toString:-fallback}\nb: "${constructor:-}"\n', {}), {
      a: 'fallback',
      b: '',
    });
    const issues = issuesOf(() => parseConfigText('a: ${constructor}\nb: ${valueOf:?set valueOf}\n', {}));
    assert.deepEqual(
      issues.map((issue) => `${issue.code} @ ${issue.path}: ${issue.message}`),
      [
        'config.missing_env @ line 1: environment variable constructor is not set',
        'config.missing_env @ line 2: set valueOf',
      ],
    );
    assert.deepEqual(parseConfigText('a: ${toString}\n', { toString: 'set' }), { a: 'set' });
  });

  it('are unset as secrets, reported rather than thrown', () => {
    const issues: ConfigIssue[] = [];
    assert.equal(readSecretEnv({}, 'toString', 'audit.hash_secret_env', issues), undefined);
    assert.deepEqual(
      issues.map((issue) => issue.code),
      ['config.missing_secret'],
    );
  });

  it('are unset for every secret of a relay config', () => {
    const text = readFileSync(`${VALID}minimal.yaml`, 'utf8')
      .replace('name: READER_HASH', 'name: constructor')
      .replace('hash_secret_env: AUDIT_SECRET', 'hash_secret_env: valueOf');
    const issues = issuesOf(() => loadRelayConfigText(text, {}, VALID));
    assert.deepEqual(
      issues.map((issue) => `${issue.code} @ ${issue.path}`),
      [
        'config.missing_secret @ auth.api_keys.0.fingerprint',
        'config.missing_secret @ audit.hash_secret_env',
      ],
    );
    const loaded = loadRelayConfigText(
      text,
      { constructor: fingerprintOf('k'), valueOf: 'a'.repeat(32) },
      VALID,
    );
    assert.equal(loaded.secrets.apiKeys[0]?.fingerprint, fingerprintOf('k'));
  });

  it('are unset for every secret of a verifier config', () => {
    const text = BASE.replace('name: CALLER_HASH', 'name: constructor').replace(
      'token_env: RELAY_TOKEN',
      'token_env: toString',
    );
    const issues = verifierIssuesOf(text, { AUDIT_SECRET: ENV.AUDIT_SECRET });
    assert.deepEqual(
      issues.map((issue) => `${issue.code} @ ${issue.path}`),
      [
        'config.missing_secret @ auth.api_keys.0.fingerprint',
        'config.missing_secret @ evidence.source_connections.relay.token_env',
      ],
    );
  });

  it('are kept as names of an env file, `__proto__` included', () => {
    const { values, problems } = parseEnvLines('__proto__=x\nconstructor=y\n');
    assert.deepEqual(problems, []);
    assert.deepEqual(Object.entries(values), [
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
  });
});
