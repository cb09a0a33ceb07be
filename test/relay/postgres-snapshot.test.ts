// PostgreSQL snapshot sources against a real database: type mapping, query sources, load failures with their
// codes, change tokens, and that nothing the relay runs can write.
import assert from 'node:assert/strict';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/platform/log.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { createPostgresSources } from '../../src/relay/sources/postgres/postgres-sources.ts';
import { SourceError } from '../../src/relay/sources/source-error.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import {
  eventually,
  postgresRelayConfig,
  startPostgresRelay,
  startupFailure,
  URL_ENV,
} from '../helpers/postgres-relay.ts';
import { ACCESS, createPeople, PEOPLE, peopleApi, peopleSchema, postgresSource } from './postgres-fixture.ts';

const PEOPLE_PATH = '/v1/datasets/registry/entities/people/records';

function dataset(tables: string, entities: string): string {
  return `  - id: registry
    title: Registry
    tables:
${tables}
    entities:
${entities}`;
}

function peopleDataset(source: string, options: { strict?: boolean; schema?: string } = {}): string {
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

describe('PostgreSQL snapshot sources', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await createPeople(db);
  });
  after(() => db.close());

  it('load every row and map numeric, integer, bigint, text, date, timestamp(tz), boolean and null', async () => {
    const relay = await startPostgresRelay(peopleDataset(postgresSource({ table: 'people' })), db.url);
    try {
      const response = await relay.get(`${PEOPLE_PATH}?limit=100`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().data, PEOPLE);
      assert.ok(response.headers.etag, 'a snapshot has a data version, so an ETag');
      // Exact text: the timestamptz stored at +02:00 comes back as the same instant in UTC, numeric as a number.
      const record = await relay.get(`${PEOPLE_PATH}/p003`);
      assert.equal(
        record.body,
        '{"person_id":"p003","household":5000000003,"age":9,"income":3703.53,"born":"1980-10-27","registered_at":"2024-01-01T03:30:15.123Z","updated_local":"2023-06-03T08:00:00.000Z","active":false,"note":"O\'Brien, \\"Ωmega\\""}',
      );
    } finally {
      await relay.close();
    }
  });

  it('read a configured query (a WITH statement) in primary-key order, with filters over its columns', async () => {
    const query =
      'WITH grown AS (SELECT * FROM people WHERE age >= 18) -- adults only\nSELECT person_id, household, age, income, born, registered_at, updated_local, active, note FROM grown';
    const relay = await startPostgresRelay(peopleDataset(postgresSource({ query })), db.url);
    try {
      const response = await relay.get(`${PEOPLE_PATH}?limit=100`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(
        response.json().data,
        PEOPLE.filter((person) => person.age !== null && person.age >= 18),
      );
      const filtered = await relay.get(`${PEOPLE_PATH}?household=5000000001&limit=100`);
      assert.deepEqual(
        filtered.json().data.map((row: { person_id: string }) => row.person_id),
        PEOPLE.filter((p) => p.age !== null && p.age >= 18 && p.household === 5_000_000_001).map(
          (p) => p.person_id,
        ),
      );
    } finally {
      await relay.close();
    }
  });

  it('produce the same version (ETag) from the same data, and a new one when a row changes', async () => {
    const source = peopleDataset(postgresSource({ table: 'people' }));
    const first = await startPostgresRelay(source, db.url);
    const second = await startPostgresRelay(source, db.url);
    try {
      const a = await first.get(PEOPLE_PATH);
      const b = await second.get(PEOPLE_PATH);
      assert.equal(a.headers.etag, b.headers.etag);
      await db.query("UPDATE people SET note = 'changed' WHERE person_id = 'p001'");
      const third = await startPostgresRelay(source, db.url);
      try {
        assert.notEqual((await third.get(PEOPLE_PATH)).headers.etag, a.headers.etag);
      } finally {
        await third.close();
      }
    } finally {
      await db.query("UPDATE people SET note = 'note 1' WHERE person_id = 'p001'");
      await first.close();
      await second.close();
    }
  });

  it('stream more rows than one batch holds, with control characters, backslashes and Unicode intact', async () => {
    await db.query('CREATE TABLE notes (id integer PRIMARY KEY, body text, score double precision)');
    await db.query(`INSERT INTO notes
      SELECT i, 'line ' || i || E'\\ttab\\nnewline \\\\ back ' || chr(937) || chr(128512), i / 4.0
        FROM generate_series(1, 20000) AS i`);
    const relay = await startPostgresRelay(
      dataset(
        `      - id: notes
        ${postgresSource({ table: 'notes' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: body, type: string }, { name: score, type: number }] }`,
        `      - { name: notes, table: notes, ${ACCESS}, api: { max_limit: 10000 } }`,
      ),
      db.url,
    );
    try {
      assert.deepEqual((await relay.get('/v1/datasets/registry/entities/notes/records/19999')).json(), {
        id: 19999,
        body: 'line 19999\ttab\nnewline \\ back Ω😀',
        score: 4999.75,
      });
      let count = 0;
      let path = '/v1/datasets/registry/entities/notes/records?limit=10000';
      for (;;) {
        const body = (await relay.get(path)).json();
        count += body.data.length;
        if (!body.pagination.has_more) break;
        path = `/v1/datasets/registry/entities/notes/records?limit=10000&cursor=${encodeURIComponent(body.pagination.next_cursor)}`;
      }
      assert.equal(count, 20000);
    } finally {
      await relay.close();
    }
  });

  describe('load failures name the table and a stable code', () => {
    it('a bigint beyond the safe integer range declared integer: ingest.type_mismatch', async () => {
      await db.query('CREATE TABLE big (id integer PRIMARY KEY, amount bigint)');
      await db.query('INSERT INTO big VALUES (1, 9007199254740993)');
      const error = await startupFailure(
        db.url,
        dataset(
          `      - id: big
        ${postgresSource({ table: 'big' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: amount, type: integer }] }`,
          `      - { name: big, table: big, ${ACCESS} }`,
        ),
      );
      assert.equal(error.code, 'ingest.type_mismatch');
      assert.equal(error.tableId, 'big');
      assert.equal(error.row, 1);
      assert.equal(error.column, 'amount');
    });

    it('a numeric NaN declared number: ingest.type_mismatch', async () => {
      await db.query('CREATE TABLE odd (id integer PRIMARY KEY, value numeric)');
      await db.query("INSERT INTO odd VALUES (1, 1.5), (2, 'NaN')");
      const error = await startupFailure(
        db.url,
        dataset(
          `      - id: odd
        ${postgresSource({ table: 'odd' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: value, type: number }] }`,
          `      - { name: odd, table: odd, ${ACCESS} }`,
        ),
      );
      assert.equal(error.code, 'ingest.type_mismatch');
      assert.equal(error.row, 2);
    });

    it('a declared column the table lacks: ingest.missing_column', async () => {
      const error = await startupFailure(
        db.url,
        peopleDataset(postgresSource({ table: 'people' }), {
          schema: `
        primary_key: person_id
        schema: { strict: false, fields: [{ name: person_id, type: string }, { name: shoe_size, type: integer }] }`,
        }),
      );
      assert.equal(error.code, 'ingest.missing_column');
      assert.match(error.message, /shoe_size/);
    });

    it('an undeclared column under strict: ingest.strict_extra_column (dropped when not strict)', async () => {
      const narrow = `
        primary_key: person_id
        schema: { strict: STRICT, fields: [{ name: person_id, type: string }, { name: age, type: integer }] }`;
      const error = await startupFailure(
        db.url,
        peopleDataset(postgresSource({ table: 'people' }), { schema: narrow.replace('STRICT', 'true') }),
      );
      assert.equal(error.code, 'ingest.strict_extra_column');
      const relay = await startPostgresRelay(
        peopleDataset(postgresSource({ table: 'people' }), { schema: narrow.replace('STRICT', 'false') }),
        db.url,
      );
      try {
        assert.deepEqual((await relay.get(`${PEOPLE_PATH}/p002`)).json(), { person_id: 'p002', age: 6 });
      } finally {
        await relay.close();
      }
    });

    it('a table that does not exist, or a name crafted as SQL: ingest.query_failed, nothing else runs', async () => {
      for (const name of ['no_such_table', '"people; DROP TABLE people; --"']) {
        const error = await startupFailure(db.url, peopleDataset(postgresSource({ table: name })));
        assert.equal(error.code, 'ingest.query_failed', error.message);
      }
      const { rows } = await db.query('SELECT count(*)::int AS n FROM people');
      assert.equal(rows[0]?.n, PEOPLE.length);
    });
  });

  describe('read only', () => {
    before(async () => {
      await db.query('CREATE TABLE writes (at timestamptz DEFAULT now())');
      // A function that writes when called: the relay must never run it to completion.
      await db.query(`CREATE FUNCTION sneaky_write() RETURNS integer LANGUAGE plpgsql AS $body$
        BEGIN INSERT INTO writes DEFAULT VALUES; RETURN 1; END $body$`);
      await db.query('CREATE VIEW people_with_writes AS SELECT people.*, sneaky_write() AS w FROM people');
    });

    const writeCount = async () => (await db.query('SELECT count(*)::int AS n FROM writes')).rows[0]?.n;

    it('a crafted query that writes through a function fails the load and writes nothing', async () => {
      const query = 'SELECT p.*, sneaky_write() AS w FROM people AS p';
      const error = await startupFailure(db.url, peopleDataset(postgresSource({ query }), { strict: false }));
      assert.equal(error.code, 'ingest.query_failed');
      assert.match(error.message, /read-only transaction/);
      assert.equal(await writeCount(), 0);
    });

    it('a view that writes when read fails the load and writes nothing', async () => {
      const error = await startupFailure(
        db.url,
        peopleDataset(postgresSource({ table: 'people_with_writes' }), { strict: false }),
      );
      assert.equal(error.code, 'ingest.query_failed');
      assert.match(error.message, /read-only transaction/);
      assert.equal(await writeCount(), 0);
    });

    it('a change token query that writes through a function fails and writes nothing', async () => {
      const text = postgresRelayConfig(
        peopleDataset(postgresSource({ table: 'people' }, "change_token_sql: 'SELECT sneaky_write()'")),
        '/dev/null',
      );
      const loaded = loadRelayConfigText(text, relayEnv(db.url), '/');
      const sources = createPostgresSources(loaded.config, loaded.secrets.sourceUrls, {
        logger: silentLogger(),
        now: () => 0,
      });
      try {
        const table = loaded.config.datasets[0]?.tables[0];
        assert.ok(table);
        await assert.rejects(sources.changeToken(table), (error: unknown) => {
          assert.ok(error instanceof SourceError);
          assert.equal(error.code, 'ingest.query_failed');
          return true;
        });
        assert.equal(await writeCount(), 0);
      } finally {
        await sources.close();
      }
    });
  });

  it('refresh.mode mtime reloads the snapshot when the answer of change_token_sql changes', async () => {
    await db.query('CREATE TABLE counters (id integer PRIMARY KEY, value integer, updated_at timestamptz)');
    await db.query("INSERT INTO counters VALUES (1, 10, '2024-01-01T00:00:00Z')");
    const relay = await startPostgresRelay(
      dataset(
        `      - id: counters
        ${postgresSource({ table: 'counters' }, "change_token_sql: 'SELECT max(updated_at) FROM counters'")}
        refresh: { mode: mtime, interval: 1s }
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: value, type: integer }, { name: updated_at, type: timestamp }] }`,
        `      - { name: counters, table: counters, ${ACCESS} }`,
      ),
      db.url,
    );
    const COUNTER = '/v1/datasets/registry/entities/counters/records/1';
    try {
      const before = await relay.get(COUNTER);
      assert.equal(before.json().value, 10);
      await db.query("UPDATE counters SET value = 11, updated_at = '2024-01-02T00:00:00Z' WHERE id = 1");
      await eventually(
        async () => (await relay.get(COUNTER)).json().value === 11,
        'the refresh to load the change',
      );
      assert.notEqual((await relay.get(COUNTER)).headers.etag, before.headers.etag);
    } finally {
      await relay.close();
    }
  });

  it('a change token that cannot be read costs no reload on every poll: the table keeps being served', async () => {
    await db.query('CREATE TABLE ledgers (id integer PRIMARY KEY, value integer)');
    await db.query('INSERT INTO ledgers VALUES (1, 10)');
    // Accepted when the config loads, refused by the database on every run (division by zero).
    const failingToken = "change_token_sql: 'SELECT 1 / (count(*) - count(*)) FROM ledgers'";
    const relay = await startPostgresRelay(
      dataset(
        `      - id: ledgers
        ${postgresSource({ table: 'ledgers' }, failingToken)}
        refresh: { mode: mtime, interval: 1s }
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: value, type: integer }] }`,
        `      - { name: ledgers, table: ledgers, ${ACCESS} }`,
      ),
      db.url,
      { admin: true },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 3500));
      const metrics = (await relay.admin('GET', '/metrics')).body;
      const reloads = metrics
        .split('\n')
        .filter((line) => line.startsWith('ambit_relay_reloads_total{') && line.includes('trigger="mtime"'))
        .map((line) => Number(line.split(' ').pop()))
        .reduce((sum, count) => sum + count, 0);
      assert.equal(reloads, 0, metrics);
      assert.equal((await relay.get('/v1/datasets/registry/entities/ledgers/records/1')).json().value, 10);
    } finally {
      await relay.close();
    }
  });

  it('change tokens are equal while the data is unchanged and differ after a change', async () => {
    const { sources, table } = changeTokenSources(db.url, 'SELECT count(*), max(note) FROM people');
    try {
      const first = await sources.changeToken(table);
      assert.equal(await sources.changeToken(table), first);
      await db.query("UPDATE people SET note = 'zz last' WHERE person_id = 'p002'");
      assert.notEqual(await sources.changeToken(table), first);
    } finally {
      await db.query("UPDATE people SET note = 'note 2' WHERE person_id = 'p002'");
      await sources.close();
    }
  });

  it('a change token is read as a digest per row: a huge answer does not cross the wire', async () => {
    // Through a proxy that counts the bytes the server sends: read whole, this value of 6 MB would be nearly all of them
    // (and one past 512 MiB would end the process in the driver).
    const proxy = await byteCountingProxy(db.url);
    const { sources, table } = changeTokenSources(proxy.url, 'SELECT repeat(max(note), 1000000) FROM people');
    try {
      const first = await sources.changeToken(table);
      assert.equal(await sources.changeToken(table), first);
      assert.ok(proxy.received() < 64 * 1024, `${proxy.received()} bytes from the server`);
      await db.query("UPDATE people SET note = 'zz last' WHERE person_id = 'p002'");
      assert.notEqual(await sources.changeToken(table), first);
    } finally {
      await db.query("UPDATE people SET note = 'note 2' WHERE person_id = 'p002'");
      await sources.close();
      await proxy.close();
    }
  });
});

/** A TCP proxy in front of the database at `url`, counting the bytes the server sends. */
async function byteCountingProxy(
  url: string,
): Promise<{ url: string; received(): number; close(): Promise<void> }> {
  const target = new URL(url);
  let received = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    upstream.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: proxied.toString(),
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
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
function changeTokenSources(url: string, sql: string) {
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
