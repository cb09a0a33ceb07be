// PostgreSQL going away: down at start (the relay starts, /ready says which table waits, and it loads once the
// database answers; admin reloads meanwhile answer at once; a first load that fails later is recovered by a reload)
// and during live reads (503 datasource.unavailable, then recovery), never needing a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { openPostgresSnapshot } from '../../src/relay/sources/postgres/read-postgres-snapshot.ts';
import type { SourceError } from '../../src/relay/sources/source-error.ts';
import { startRelay } from '../../src/relay/start-relay.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import {
  type DatabaseSwitch,
  databaseSwitch,
  eventually,
  postgresRelayConfig,
  READER_KEY,
  startPostgresRelay,
  URL_ENV,
} from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ACCESS, createPeople, PEOPLE, peopleSchema, postgresSource } from './postgres-fixture.ts';

const DATASETS = `  - id: registry
    title: Registry
    tables:
      - id: people_snapshot
        ${postgresSource({ table: 'people' }, 'connect_timeout: 1s')}${peopleSchema()}
      - id: people_live
        ${postgresSource({ table: 'people' }, 'connect_timeout: 1s')}
        materialization: live${peopleSchema()}
    entities:
      - { name: people, table: people_snapshot, ${ACCESS} }
      - { name: people_live, table: people_live, ${ACCESS} }`;

const SNAPSHOT = '/v1/datasets/registry/entities/people/records';
const LIVE = '/v1/datasets/registry/entities/people_live/records';

describe('PostgreSQL unavailable', () => {
  let db: TestDatabase;
  let database: DatabaseSwitch;
  before(async () => {
    db = await openTestDatabase();
    await createPeople(db);
    database = await databaseSwitch(db.url);
  });
  after(async () => {
    await database.close();
    await db.close();
  });

  it('at start: the relay serves /ready 503 counting the waiting tables, then loads when the database answers', async () => {
    await database.cut();
    const relay = await startPostgresRelay(DATASETS, database.url, {
      waitForLoad: false,
      sourceRetryMs: 50,
      admin: true,
    });
    try {
      await relay.relay.waitingForSources;
      await eventually(async () => {
        const body = (await relay.get('/ready')).json();
        return body.waiting_count === 2;
      }, 'both tables to be reported as waiting');
      const ready = await relay.get('/ready');
      assertProblem(ready, 503, 'schema.resource_unavailable', /2 waiting for their database/);
      assert.equal(ready.headers['retry-after'], '5');
      // Table ids are private configuration: the unauthenticated probe counts them, the admin listener names them.
      assert.equal(ready.json().waiting, undefined);
      assert.doesNotMatch(ready.body, /people_live|people_snapshot|registry/, 'no table or dataset id');
      const adminReady = await relay.admin('GET', '/ready');
      assert.equal(adminReady.json().waiting_count, 2);
      assert.deepEqual(
        adminReady
          .json()
          .waiting.map((wait: { table_id: string }) => wait.table_id)
          .sort(),
        ['people_live', 'people_snapshot'],
      );
      for (const wait of adminReady.json().waiting) {
        assert.deepEqual(Object.keys(wait).sort(), ['code', 'dataset_id', 'table_id']);
        assert.equal(wait.code, 'ingest.source_unavailable');
      }
      for (const body of [ready.body, adminReady.body]) {
        assert.doesNotMatch(body, /postgres:|127\.0\.0\.1|password/, 'no connection detail leaks');
      }
      assertProblem(await relay.get(SNAPSHOT), 503, 'schema.resource_unavailable');

      await database.open();
      await relay.relay.loaded;
      assert.equal((await relay.get('/ready')).statusCode, 200);
      assert.equal((await relay.get(`${SNAPSHOT}?limit=100`)).json().data.length, PEOPLE.length);
      assert.equal((await relay.get(`${LIVE}?limit=100`)).json().data.length, PEOPLE.length);
    } finally {
      await relay.close();
    }
  });

  it('at start: an admin reload while a table waits for its database answers 503 at once and queues nothing', async () => {
    await database.cut();
    const relay = await startPostgresRelay(DATASETS, database.url, { waitForLoad: false, admin: true });
    try {
      await eventually(
        async () => (await relay.get('/ready')).json().waiting_count === 2,
        'both tables to be reported as waiting',
      );
      // The admin listener's /ready says what the public one says, and names the waiting tables.
      const adminReady = await relay.admin('GET', '/ready');
      assertProblem(adminReady, 503, 'schema.resource_unavailable', /2 waiting for their database/);
      assert.equal(adminReady.json().waiting.length, 2);
      const reload = await relay.admin('POST', '/admin/v1/reload');
      assertProblem(
        reload,
        503,
        'schema.resource_unavailable',
        /waiting for the database of registry\/people_/,
      );
      assert.equal(reload.headers['retry-after'], '5');
      assert.deepEqual(
        reload
          .json()
          .waiting.map((wait: { table_id: string }) => wait.table_id)
          .sort(),
        ['people_live', 'people_snapshot'],
      );
      assert.doesNotMatch(reload.body, /postgres:|127\.0\.0\.1|password/, 'no connection detail leaks');
      const one = await relay.admin('POST', '/admin/v1/datasets/registry/tables/people_snapshot/reload');
      assertProblem(one, 503, 'schema.resource_unavailable');

      await database.open();
      await relay.relay.loaded;
      const metrics = (await relay.admin('GET', '/metrics')).body;
      assert.doesNotMatch(
        metrics,
        /reloads_total\{[^}]*trigger="admin"[^}]*\} [1-9]/,
        'the refused reloads did not run later',
      );
      assert.deepEqual((await relay.admin('POST', '/admin/v1/reload')).json(), {
        status: 'ok',
        counts: { total: 2, succeeded: 2, failed: 0 },
      });
      // Rows of the snapshot served; a live table has none (its reads go to the database), so no series.
      const served = (await relay.admin('GET', '/metrics')).body;
      assert.match(
        served,
        new RegExp(
          `^ambit_relay_source_rows\\{dataset="registry",table="people_snapshot"\\} ${PEOPLE.length}$`,
          'm',
        ),
      );
      assert.doesNotMatch(served, /^ambit_relay_source_rows\{[^}]*table="people_live"/m);
    } finally {
      await relay.close();
    }
  });

  it('at start: a first load that fails once the database is back is recovered by a reload, and refresh runs', async () => {
    // A row that does not fit the declared schema shows up only once the database answers.
    await db.query('CREATE TABLE odd_people (id text PRIMARY KEY, district text)');
    await db.query(`INSERT INTO odd_people VALUES ('1', 'a'), ('x', 'b')`);
    const dir = mkdtempSync(join(tmpdir(), 'ambit-pg-first-load-'));
    const csv = join(dir, 'districts.csv');
    writeFileSync(csv, 'code,name\na,Alpha\n');
    const datasets = `  - id: registry
    title: Registry
    tables:
      - id: odd_people
        ${postgresSource({ table: 'odd_people' }, 'connect_timeout: 1s')}
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: district, type: string }
      - id: districts
        source: { type: file, path: ${JSON.stringify(csv)} }
        refresh: { mode: mtime, interval: 1s }
        primary_key: code
        schema:
          fields:
            - { name: code, type: string, nullable: false }
            - { name: name, type: string }
    entities:
      - { name: odd_people, table: odd_people, ${ACCESS} }
      - { name: districts, table: districts, ${ACCESS} }`;
    await database.cut();
    const relay = await startPostgresRelay(datasets, database.url, { waitForLoad: false, admin: true });
    try {
      await relay.relay.waitingForSources;
      // The file table loads while the other waits (on a busy machine it may still be loading when the wait starts,
      // and a first load stops counting once a table failed).
      await eventually(async () => relay.relay.runtime.state.readiness.loaded === 1, 'the file table loaded');
      await database.open();
      await assert.rejects(relay.relay.loaded, { code: 'ingest.type_mismatch' });
      const failed = await relay.get('/ready');
      assertProblem(failed, 503, 'schema.resource_unavailable', '1 of 2 tables loaded');
      assert.equal(failed.json().failed_count, 1);
      assert.equal(failed.json().waiting, undefined, 'the table no longer waits: it failed');
      assert.match(
        (await relay.admin('GET', '/metrics')).body,
        /^ambit_relay_reloads_total\{scope="all",trigger="startup",outcome="failed"\} 1$/m,
      );

      // A reload failing again says that nothing is served, not that earlier data still is.
      const again = await relay.admin('POST', '/admin/v1/reload');
      assertProblem(again, 500, 'admin.reload_failed', /odd_people .*nothing is served yet/);

      await db.query(`DELETE FROM odd_people WHERE id = 'x'`);
      assert.equal((await relay.admin('POST', '/admin/v1/reload')).statusCode, 200);
      const checks = { status: 'ok', checks: { total: 2, ok: 2, failed: 0 } };
      assert.deepEqual((await relay.get('/ready')).json(), checks);
      assert.deepEqual((await relay.admin('GET', '/ready')).json(), checks);
      const metrics = (await relay.admin('GET', '/metrics')).body;
      for (const [family, value] of [
        ['fully_ready', 1],
        ['ready_resources', 2],
        ['failed_resources', 0],
        ['not_ready_resources', 0],
      ] as const) {
        assert.match(metrics, new RegExp(`^ambit_relay_readiness_${family} ${value}$`, 'm'), family);
      }

      // The file table's mtime refresh runs although the first load failed.
      writeFileSync(csv, 'code,name\na,Alpha\nb,Beta\n');
      await eventually(
        async () =>
          (await relay.get('/v1/datasets/registry/entities/districts/records')).json().data?.length === 2,
        'the refresh to pick up the rewritten file',
      );
    } finally {
      await relay.close();
      await db.query('DROP TABLE odd_people');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('at start: startRelay resolves (the process serves) while a table waits for its database', async () => {
    await database.cut();
    const dir = mkdtempSync(join(tmpdir(), 'ambit-pg-start-'));
    const loaded = loadRelayConfigText(
      postgresRelayConfig(DATASETS, join(dir, 'audit.jsonl')),
      {
        READER_HASH: fingerprintOf(READER_KEY),
        AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
        [URL_ENV]: database.url,
      },
      dir,
    );
    const running = await startRelay(loaded, {
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
    });
    try {
      const ready = await fetch(`${running.url}/ready`);
      assert.equal(ready.status, 503);
      assert.equal(((await ready.json()) as { waiting_count: number }).waiting_count, 2);
    } finally {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('mid-snapshot: a database gone silent fails the load after query_timeout instead of holding it (and every later reload)', {
    timeout: 30_000,
  }, async () => {
    await database.open();
    const dir = mkdtempSync(join(tmpdir(), 'ambit-pg-silent-'));
    try {
      const loaded = loadRelayConfigText(
        postgresRelayConfig(
          DATASETS.replaceAll('connect_timeout: 1s }', 'connect_timeout: 1s, query_timeout: 1s }'),
          join(dir, 'audit.jsonl'),
        ),
        {
          READER_HASH: fingerprintOf(READER_KEY),
          AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
          [URL_ENV]: database.url,
        },
        dir,
      );
      const table = loaded.config.datasets[0]?.tables.find((entry) => entry.id === 'people_snapshot');
      assert.ok(table);
      assert.equal((table.source as { query_timeout: number }).query_timeout, 1000);
      // Connected and checked; the COPY is sent once the rows are read, into a connection that no longer answers.
      const rows = await openPostgresSnapshot(table, database.url);
      database.silence();
      const failure = await (async () => {
        try {
          for await (const _batch of rows.columnBatches) {
            // Nothing arrives.
          }
        } catch (error) {
          return error as SourceError;
        }
        return undefined;
      })();
      assert.ok(failure, 'the load fails');
      assert.equal(failure.code, 'ingest.query_timeout');
    } finally {
      await database.cut();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('during live reads: 503 datasource.unavailable with Retry-After, snapshots keep serving, then recovery', async () => {
    await database.open();
    const relay = await startPostgresRelay(DATASETS, database.url);
    try {
      assert.equal((await relay.get(`${LIVE}/p001`)).statusCode, 200);
      await database.cut();
      const down = await relay.get(`${LIVE}/p001`);
      assertProblem(down, 503, 'datasource.unavailable');
      assert.equal(down.headers['retry-after'], '5');
      assert.doesNotMatch(down.body, /postgres:|127\.0\.0\.1|ECONN/, 'no connection detail leaks');
      assertProblem(await relay.get(`${LIVE}?limit=5`), 503, 'datasource.unavailable');
      // The snapshot is in memory: it does not need the database.
      assert.equal((await relay.get(`${SNAPSHOT}/p001`)).statusCode, 200);
      assert.equal((await relay.get('/ready')).statusCode, 200);

      await database.open();
      await eventually(
        async () => (await relay.get(`${LIVE}/p001`)).statusCode === 200,
        'live reads to recover',
      );
      assert.equal((await relay.get(`${LIVE}?limit=100`)).json().data.length, PEOPLE.length);
    } finally {
      await relay.close();
    }
  });

  it('shutting down while the database has gone silent (a partition) does not wait for it', {
    timeout: 30_000,
  }, async () => {
    await database.open();
    const relay = await startPostgresRelay(DATASETS, database.url);
    try {
      // The live read leaves its connection idle in the pool, then nothing crosses the network any more.
      assert.equal((await relay.get(`${LIVE}/p001`)).statusCode, 200);
      database.silence();
    } finally {
      // Without an answer to its goodbye, the connection is dropped within connect_timeout rather than waited on.
      await relay.close();
      await database.cut();
    }
  });
});
