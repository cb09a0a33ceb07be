// Each config problem names the line it stands on, besides its dotted path, so a long file can be fixed in one pass.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { ConfigError, type ConfigIssue, formatIssue } from '../../src/platform/config/config-error.ts';
import { loadRelayConfig, loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { useScratchDir } from '../cli/cli-fixture.ts';
import { runCli } from '../helpers/run-cli.ts';

const ENV = {
  READER_HASH: fingerprintOf('reader-key'),
  AUDIT_SECRET: 'audit-secret-for-config-tests-0123456789',
};

// Line numbers are those of this text, counted from 1.
const TEXT = `server:
  bind: 127.0.0.1:4242
  bnd: 127.0.0.1:4243
  max_connections: -1
catalog:
  base_url: https://relay.example.org
  publisher: Example Registry Office
auth:
  mode: api_key
  api_keys:
    - id: reader
      fingerprint: { provider: env, name: READER_HASH }
      scopes: [people:rows, people:rowz]
audit:
  sink: stdout
  hash_secret_env: AUDIT_SECRET
datasets:
  - id: people
    title: People
    tables:
      - id: persons
        source: { type: file, path: data/persons.csv }
        primary_key: person_id
        schema:
          fields:
            - { name: person_id, type: string, bogus: 1 }
`;

function issuesOf(load: () => unknown): readonly ConfigIssue[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  assert.fail('expected the config to be rejected');
}

const located = (issues: readonly ConfigIssue[]) =>
  Object.fromEntries(issues.map((issue) => [issue.path, issue.line]));

const scratch = useScratchDir();

describe('config issue lines', () => {
  it('locate every shape problem at the line of its key, or of the mapping missing one', () => {
    const issues = issuesOf(() => loadRelayConfigText(TEXT, ENV, '/tmp'));
    assert.deepEqual(located(issues), {
      'server.bnd': 3,
      'server.max_connections': 4,
      'catalog.title': 5,
      'datasets.0.tables.0.schema.fields.0.bogus': 26,
    });
  });

  it('locate problems found after the shape, such as an unknown scope level in a list', () => {
    const text = TEXT.replace('  bnd: 127.0.0.1:4243\n  max_connections: -1\n', '')
      .replace('catalog:\n', 'catalog:\n  title: Relay\n')
      .replace(', bogus: 1', '');
    const issues = issuesOf(() => loadRelayConfigText(text, ENV, '/tmp'));
    assert.deepEqual(located(issues), { 'auth.api_keys.0.scopes.1': 12 });
  });

  it('print the line after the message, in `ambit config check` too', async () => {
    const file = join(scratch.dir, 'relay.yaml');
    writeFileSync(file, TEXT);
    const issues = issuesOf(() => loadRelayConfig(file, ENV));
    assert.equal(
      formatIssue(issues.find((issue) => issue.path === 'server.bnd') as ConfigIssue),
      'config.parse_error at server.bnd: unknown key `bnd` (did you mean `bind`?) (line 3)',
    );
    const result = await runCli(['config', 'check', '--config', file], ENV);
    assert.equal(result.code, 1);
    assert.ok(
      result.err.includes('  config.validation_error at server.max_connections: must be > 0 (line 4)'),
    );
  });
});
