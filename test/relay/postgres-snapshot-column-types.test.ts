// A snapshot column whose PostgreSQL type can never be read as the field's declared type (a date as an integer, a
// boolean as a date) is refused when the table is opened, before any row is read: an empty table no longer loads
// only to fail once it has rows, and `ambit config check --connect` says so. Types whose text can fit (text of any
// kind, integers read as booleans 0 and 1, dates read as timestamps) still load and are checked cell by cell.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startPostgresRelay, startupFailure } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { dataset, usePeopleDatabase } from './postgres-snapshot-fixture.ts';

/** One table `t` read through `source`, with `fields` declared (YAML flow entries), served as entity `t`. */
function oneTable(source: string, fields: string): string {
  return dataset(
    `      - id: t
        ${source}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, ${fields}] }`,
    `      - { name: t, table: t, ${ACCESS} }`,
  );
}

describe('PostgreSQL snapshot column types', () => {
  const setup = usePeopleDatabase();

  for (const [column, shown, declared] of [
    ['date', 'date', 'integer'],
    ['boolean', 'boolean', 'number'],
    ['timestamptz', 'timestamp with time zone', 'date'],
    ['uuid', 'uuid', 'boolean'],
    ['interval', 'interval', 'timestamp'],
  ] as const) {
    it(`refuses a column of type ${column} declared ${declared}, an empty table too, naming the column`, async () => {
      const { db } = setup;
      const name = `never_${column}_${declared}`;
      await db.query(`CREATE TABLE ${name} (id integer PRIMARY KEY, v ${column})`);
      const error = await startupFailure(
        db.url,
        oneTable(postgresSource({ table: name }), `{ name: v, type: ${declared} }`),
      );
      assert.equal(error.code, 'ingest.type_mismatch');
      assert.equal(error.column, 'v');
      assert.equal(error.row, undefined, 'refused before any row');
      assert.match(
        error.detail,
        new RegExp(`^column is ${shown}, which a snapshot can never read as ${declared}`),
      );
    });
  }

  it('loads columns whose text can fit the declared type, and reads their cells', async () => {
    const { db } = setup;
    await db.query(
      `CREATE TABLE fits (id integer PRIMARY KEY, code text, flag integer, day date, n numeric)`,
    );
    await db.query(`INSERT INTO fits VALUES (1, '42', 1, '2024-02-01', 3), (2, '7', 0, '2024-02-02', 4)`);
    const relay = await startPostgresRelay(
      oneTable(
        postgresSource({ table: 'fits' }),
        '{ name: code, type: integer }, { name: flag, type: boolean }, { name: day, type: timestamp }, { name: n, type: integer }',
      ),
      db.url,
    );
    try {
      const response = await relay.get('/v1/datasets/registry/entities/t/records');
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().data, [
        { id: 1, code: 42, flag: true, day: '2024-02-01T00:00:00.000Z', n: 3 },
        { id: 2, code: 7, flag: false, day: '2024-02-02T00:00:00.000Z', n: 4 },
      ]);
    } finally {
      await relay.close();
    }
  });

  it('judges a query source by the types its columns have', async () => {
    const { db } = setup;
    await db.query(`CREATE TABLE dated (id integer PRIMARY KEY, opened date)`);
    const refused = await startupFailure(
      db.url,
      oneTable(postgresSource({ query: 'SELECT id, opened FROM dated' }), '{ name: opened, type: integer }'),
    );
    assert.equal(refused.code, 'ingest.type_mismatch');
    assert.equal(refused.column, 'opened');
    // Cast to text, the column may hold anything: its cells are checked as they are read.
    const relay = await startPostgresRelay(
      oneTable(
        postgresSource({ query: 'SELECT id, opened::text AS opened FROM dated' }),
        '{ name: opened, type: integer }',
      ),
      db.url,
    );
    await relay.close();
  });
});
