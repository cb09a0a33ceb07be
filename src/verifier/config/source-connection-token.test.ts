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
});
