// Shared by the scale-out tests over PostgreSQL: one database holding `people` (every mapped type, NULLs, equal
// values) and `events` (written to while it is read), and one config serving `people` as a snapshot of its table
// and of a query, `events` live, and an aggregate; each relay process gets a folder of its own with that config.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { URL_ENV } from '../helpers/postgres-relay.ts';
import {
  byHouseholdAggregate,
  createPeople,
  peopleApi,
  peopleSchema,
  postgresSource,
} from '../relay/postgres-fixture.ts';
import { type Served, serve } from './relay-scale-fixture.ts';

export const RECORDS = (entity: string) => `/v1/datasets/people/entities/${entity}/records`;
export const AGGREGATE = '/v1/datasets/people/aggregates/by_household';
export const CURSOR_SECRET = 'scale-out-cursor-secret-0123456789abcdef';
/** Ids of the rows of `events` when a suite starts: even numbers, so rows can be inserted between them. */
export const EVENT_IDS = Array.from({ length: 60 }, (_, i) => 2 * (i + 1));

const ACCESS = 'access: { metadata_scope: "people:metadata", read_scope: "people:rows" }';

/** The config every process of a suite serves (the reload fixture's keys: `reader`, `operator`). */
function configText(): string {
  const keys = [
    '{ id: reader, fingerprint: { provider: env, name: READER_HASH }, scopes: [people:metadata, people:rows] }',
    '{ id: operator, fingerprint: { provider: env, name: OPERATOR_HASH }, scopes: [relay:admin] }',
  ];
  return `server:
  bind: 127.0.0.1:0
  admin_bind: 127.0.0.1:0
  cursor_secret_env: CURSOR_SECRET
catalog: { title: Scale-out over PostgreSQL, base_url: "http://127.0.0.1", publisher: Test }
auth:
  mode: api_key
  api_keys:
${keys.map((key) => `    - ${key}`).join('\n')}
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: people
    title: People
    defaults: { refresh: { mode: manual } }
    tables:
      - id: people
        ${postgresSource({ table: 'people' })}${peopleSchema()}
      - id: people_query
        ${postgresSource({ query: 'SELECT * FROM people ORDER BY household DESC' })}${peopleSchema()}
      - id: events
        ${postgresSource({ table: 'events' })}
        materialization: live
        primary_key: id
        schema: { fields: [{ name: id, type: integer, nullable: false }, { name: label, type: string }] }
    entities:
${['people', 'people_query']
  .map((name) => `      - name: ${name}\n        table: ${name}\n        ${ACCESS}\n        ${peopleApi()}`)
  .join('\n')}
      - { name: events, table: events, ${ACCESS}, api: { max_limit: 100 } }
${byHouseholdAggregate('people:rows')}`;
}

export interface PostgresScale {
  readonly db: TestDatabase;
  /** Serves the suite's config from a folder of its own; stopped after the suite. `group`: see `serve`. */
  serve(extra?: string[], env?: Record<string, string>, group?: boolean): Promise<Served>;
}

/** Opens the database before the suite and serves nothing yet; everything is stopped and removed after it. */
export function usePostgresScale(): PostgresScale {
  let db: TestDatabase;
  const dirs: string[] = [];
  const relays: Served[] = [];
  before(async () => {
    db = await openTestDatabase();
    await createPeople(db);
    await db.query('CREATE TABLE events (id integer PRIMARY KEY, label text)');
    await db.query(`INSERT INTO events SELECT i, 'event ' || i FROM unnest($1::int[]) AS i`, [EVENT_IDS]);
  });
  after(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await db?.close();
  });
  return {
    get db() {
      return db;
    },
    async serve(extra = [], env = {}, group = false) {
      const dir = mkdtempSync(join(tmpdir(), 'ambit-scale-pg-'));
      dirs.push(dir);
      const configPath = join(dir, 'relay.yaml');
      writeFileSync(configPath, configText());
      const relay = await serve({ configPath }, extra, { [URL_ENV]: db.url, CURSOR_SECRET, ...env }, group);
      relays.push(relay);
      return relay;
    },
  };
}
