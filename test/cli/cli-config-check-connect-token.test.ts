// `ambit config check --connect` on a snapshot table whose `change_token_sql` the database refuses: the table itself
// serves (a start loads it), so the report must say that the change token, not the table, is what fails.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { postgresRelayConfig, URL_ENV } from '../helpers/postgres-relay.ts';
import { runCli } from '../helpers/run-cli.ts';
import { ACCESS, postgresSource } from '../relay/postgres-fixture.ts';
import { AUDIT_SECRET, useScratchDir } from './cli-fixture.ts';

const scratch = useScratchDir();

function relayConfig(changeTokenSql: string): string {
  const path = join(scratch.dir, 'relay.yaml');
  const datasets = `  - id: registry
    title: Registry
    tables:
      - id: copy
        ${postgresSource({ table: 'people' }, `change_token_sql: ${JSON.stringify(changeTokenSql)}`)}
        refresh: { mode: mtime, interval: 10s }
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: label, type: string }] }
    entities:
      - { name: copy, table: copy, ${ACCESS} }`;
  writeFileSync(path, postgresRelayConfig(datasets, join(scratch.dir, 'audit.jsonl')));
  return path;
}

describe('ambit config check --connect: change_token_sql', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE people (id integer PRIMARY KEY, label text NOT NULL)');
  });
  after(() => db.close());

  it('names change_token_sql as what the database refused, not the table read', async () => {
    const config = relayConfig('SELECT missing_column FROM people');
    const env = { READER_HASH: fingerprintOf('reader-key'), AUDIT_SECRET, [URL_ENV]: db.url };
    const result = await runCli(['config', 'check', '--config', config, '--connect'], env);
    assert.equal(result.code, 1);
    assert.match(
      result.err.join('\n'),
      /registry\/copy \(snapshot\): ingest\.query_failed: change_token_sql: PostgreSQL refused the read \(SQLSTATE 42703/,
    );
  });
});
