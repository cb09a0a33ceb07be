// Shared by the PostgreSQL snapshot tests: a database with `people`, snapshot configs, change token sources.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { silentLogger } from '../../src/platform/log.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { createPostgresSources } from '../../src/relay/sources/postgres/postgres-sources.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { postgresRelayConfig, URL_ENV } from '../helpers/postgres-relay.ts';
import { ACCESS, createPeople, peopleApi, peopleSchema, postgresSource } from './postgres-fixture.ts';

export const PEOPLE_PATH = '/v1/datasets/registry/entities/people/records';

/** A `registry` dataset of the given tables and entities (YAML lines). */
export function dataset(tables: string, entities: string): string {
  return `  - id: registry
    title: Registry
    tables:
${tables}
    entities:
${entities}`;
}

/** `people` read through `source` as entity `people`, with the declared schema unless another is given. */
export function peopleDataset(source: string, options: { strict?: boolean; schema?: string } = {}): string {
  // A narrower schema gets no filters (they name the full set of columns).
  return dataset(
    `      - id: people
        ${source}${options.schema ?? peopleSchema(options.strict ?? true)}`,
    `      - name: people
        table: people
        ${ACCESS}
        ${options.schema === undefined ? peopleApi() : ''}`,
  );
}

/** Opens a test database with the `people` table before the suite's tests, closes it after. */
export function usePeopleDatabase(): { readonly db: TestDatabase } {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await createPeople(db);
  });
  after(() => db.close());
  return {
    get db() {
      return db;
    },
  };
}

function relayEnv(url: string): Record<string, string> {
  return {
    READER_HASH: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
    AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
    [URL_ENV]: url,
  };
}

/** The PostgreSQL sources of a one-table config whose change token is `sql`, and that table. */
export function changeTokenSources(url: string, sql: string) {
  const text = postgresRelayConfig(
    peopleDataset(postgresSource({ table: 'people' }, `change_token_sql: '${sql}'`)),
    '/dev/null',
  );
  const loaded = loadRelayConfigText(text, relayEnv(url), '/');
  const sources = createPostgresSources(loaded.config, loaded.secrets.sourceUrls, {
    logger: silentLogger(),
    now: () => 0,
  });
  const table = loaded.config.datasets[0]?.tables[0];
  assert.ok(table);
  return { sources, table };
}
