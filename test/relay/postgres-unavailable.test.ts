// PostgreSQL going away: down at start (the relay starts, /ready says which table waits, and it loads once the
// database answers) and during live reads (503 datasource.unavailable, then recovery), never needing a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
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

  it('at start: the relay serves /ready 503 naming the waiting tables, then loads when the database answers', async () => {
    await database.cut();
    const relay = await startPostgresRelay(DATASETS, database.url, { waitForLoad: false, sourceRetryMs: 50 });
    try {
      await relay.relay.waitingForSources;
      await eventually(async () => {
        const body = (await relay.get('/ready')).json();
        return body.waiting?.length === 2;
      }, 'both tables to be reported as waiting');
      const ready = await relay.get('/ready');
      assertProblem(ready, 503, 'schema.resource_unavailable', /2 waiting for their database/);
      assert.equal(ready.headers['retry-after'], '5');
      assert.deepEqual(
        ready
          .json()
          .waiting.map((wait: { table_id: string }) => wait.table_id)
          .sort(),
        ['people_live', 'people_snapshot'],
      );
      for (const wait of ready.json().waiting) {
        assert.deepEqual(Object.keys(wait).sort(), ['code', 'dataset_id', 'table_id']);
        assert.equal(wait.code, 'ingest.source_unavailable');
      }
      assert.doesNotMatch(ready.body, /postgres:|127\.0\.0\.1|password/, 'no connection detail leaks');
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
      assert.equal(((await ready.json()) as { waiting: unknown[] }).waiting.length, 2);
    } finally {
      await running.close();
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
});
