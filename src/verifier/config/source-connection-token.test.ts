import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectionConfig, ENV, issuesAt } from './verifier-config-test-support.ts';

const CONFIG = connectionConfig('base_url: "https://relay.example", token_env: RELAY_TOKEN');

function tokenIssues(token: string): { code: string; message: string }[] {
  return issuesAt(CONFIG, 'evidence.source_connections.relay.token_env', { ...ENV, RELAY_TOKEN: token });
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

  it('never repeats a token written as its own reference where the variable name belongs', () => {
    // `token_env: ${RELAY_TOKEN}` is expanded before the name is looked up: the unset "name" is the token.
    const token = 'relayToken0123456789abcdef';
    const config = connectionConfig(`base_url: "https://relay.example", token_env: ${token}`);
    const issues = issuesAt(config, 'evidence.source_connections.relay.token_env', {
      ...ENV,
      RELAY_TOKEN: token,
    });
    assert.equal(issues.length, 1);
    assert.equal(issues[0]?.code, 'config.missing_secret');
    assert.ok(!issues[0]?.message.includes(token), issues[0]?.message);
    assert.match(issues[0]?.message ?? '', /the value of RELAY_TOKEN \(not shown\)/);
  });
});
