// The `people` table the PostgreSQL tests read, created in a test database, and the same rows as plain values
// (what the relay should answer) for computing expected results independently of the relay.
import { after, before } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay, URL_ENV } from '../helpers/postgres-relay.ts';

export interface Person {
  readonly person_id: string;
  readonly household: number;
  readonly age: number | null;
  readonly income: number | null;
  readonly born: string;
  readonly registered_at: string;
  readonly updated_local: string | null;
  readonly active: boolean | null;
  readonly note: string | null;
}

const DAY_MS = 86_400_000;

export const PEOPLE: readonly Person[] = Array.from({ length: 24 }, (_, index) => {
  const i = index + 1;
  return {
    person_id: `p${String(i).padStart(3, '0')}`,
    // Beyond 2^31: a bigint column.
    household: 5_000_000_000 + (i % 6),
    age: i % 7 === 0 ? null : i * 3,
    income: i % 5 === 0 ? null : Math.round(i * 1234.5 * 100 + i) / 100,
    born: new Date(Date.UTC(1980, 0, 1) + i * 100 * DAY_MS).toISOString().slice(0, 10),
    registered_at: new Date(Date.UTC(2024, 0, 1, i, 30, 15, 123)).toISOString(),
    updated_local: i % 9 === 0 ? null : new Date(Date.UTC(2023, 5, i, 8, 0, 0)).toISOString(),
    active: i % 11 === 0 ? null : i % 2 === 0,
    note: i % 4 === 0 ? null : i === 3 ? 'O\'Brien, "Ωmega"' : `note ${i}`,
  };
});

/** Creates `people` (every mapped type: text, bigint, integer, numeric, date, timestamptz, timestamp, boolean). */
export async function createPeople(db: TestDatabase, table = 'people'): Promise<void> {
  await db.query(`CREATE TABLE ${table} (
    person_id text PRIMARY KEY,
    household bigint NOT NULL,
    age integer,
    income numeric(14, 2),
    born date NOT NULL,
    registered_at timestamptz NOT NULL,
    updated_local timestamp,
    active boolean,
    note text
  )`);
  for (const person of PEOPLE) {
    // timestamptz is written with a +02:00 offset: the relay must answer the same instant in UTC.
    const registered = new Date(Date.parse(person.registered_at) + 2 * 3_600_000)
      .toISOString()
      .replace('Z', '456+02:00');
    await db.query(`INSERT INTO ${table} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
      person.person_id,
      String(person.household),
      person.age,
      person.income === null ? null : person.income.toFixed(2),
      person.born,
      registered,
      person.updated_local === null ? null : person.updated_local.replace('T', ' ').replace('Z', ''),
      person.active,
      person.note,
    ]);
  }
}

/** The declared schema of `people`; `strict` as given. */
export function peopleSchema(strict = true): string {
  return `
        primary_key: person_id
        schema:
          strict: ${strict}
          fields:
            - { name: person_id, type: string, nullable: false }
            - { name: household, type: integer, nullable: false }
            - { name: age, type: integer }
            - { name: income, type: number }
            - { name: born, type: date, nullable: false }
            - { name: registered_at, type: timestamp, nullable: false }
            - { name: updated_local, type: timestamp }
            - { name: active, type: boolean }
            - { name: note, type: string }`;
}

export const ALL_OPS = '[eq, in, gte, lte, between]';

export function peopleApi(maxLimit = 1000): string {
  return `api:
          default_limit: 50
          max_limit: ${maxLimit}
          allowed_filters:
            - { field: person_id, ops: ${ALL_OPS} }
            - { field: household, ops: ${ALL_OPS} }
            - { field: age, ops: ${ALL_OPS} }
            - { field: income, ops: ${ALL_OPS} }
            - { field: born, ops: ${ALL_OPS} }
            - { field: registered_at, ops: ${ALL_OPS} }
            - { field: updated_local, ops: ${ALL_OPS} }
            - { field: active, ops: ${ALL_OPS} }
            - { field: note, ops: ${ALL_OPS} }`;
}

export const ACCESS = 'access: { metadata_scope: "registry:metadata", read_scope: "registry:rows" }';

/** `aggregates:` with one count of `people` by household, readable with `scope`, no cell suppressed. */
export function byHouseholdAggregate(scope: string): string {
  return `    aggregates:
      - id: by_household
        source_entity: people
        dimensions: [{ id: household, field: household }]
        default_group_by: [household]
        indicators: [{ id: people, function: count }]
        access: { aggregate_scope: "${scope}" }
        disclosure_control: { min_cell_size: 1 }
`;
}

/** A postgres source block reading `table` (or `query`), with extra source keys. */
export function postgresSource(what: { table?: string; query?: string }, extra = ''): string {
  const target =
    what.table !== undefined ? `table: { name: ${what.table} }` : `query: ${JSON.stringify(what.query)}`;
  return `source: { type: postgres, connection_env: ${URL_ENV}, ${target}${extra === '' ? '' : `, ${extra}`} }`;
}

/**
 * A database with the `people` table and a relay on `datasets` over it, opened before the suite's tests and
 * closed after; read `db` and `relay` inside tests.
 */
export function usePeopleRelay(datasets: string): {
  readonly db: TestDatabase;
  readonly relay: PostgresRelay;
} {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openTestDatabase();
    await createPeople(db);
    relay = await startPostgresRelay(datasets, db.url);
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });
  return {
    get db() {
      return db;
    },
    get relay() {
      return relay;
    },
  };
}
