// `ambit demo` with DATABASE_URL: the PostgreSQL dataset is seeded, joins the demo config, and is served both as a
// snapshot and live to the personas granted it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  BIRTH_ROWS,
  prepareDemoPostgres,
  seedDemoPostgres,
  withPostgresDataset,
} from '../../src/cli/demo-postgres.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { injectThroughLane } from '../helpers/inject-through-lane.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { DEMO_DIR, demoConfigText, demoEnv, type Persona, TEST_KEYS } from '../helpers/relay-harness.ts';

const BIRTHS = '/v1/datasets/vital_events/entities/births/records';
const BIRTHS_LIVE = '/v1/datasets/vital_events/entities/births_live/records';

describe('demo with DATABASE_URL', () => {
  let db: TestDatabase;
  let relay: RelayApp;
  const dir = mkdtempSync(join(tmpdir(), 'ambit-demo-pg-'));
  before(async () => {
    db = await openTestDatabase();
    await seedDemoPostgres(db.url);
    // Seeding twice gives the same table (every `ambit demo` start reseeds).
    await seedDemoPostgres(db.url);
    const text = withPostgresDataset(
      demoConfigText(join(dir, 'audit.jsonl')),
      join(DEMO_DIR, 'relay.postgres-dataset.yaml'),
    );
    const loaded = loadRelayConfigText(text, demoEnv({ DATABASE_URL: db.url }), DEMO_DIR);
    relay = createRelayApp(loaded, { logger: silentLogger(), clock: systemClock, random: systemRandom });
    await relay.loaded;
  });
  after(async () => {
    await relay?.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string, as: Persona) =>
    injectThroughLane(relay.app, {
      method: 'GET',
      url: path,
      headers: { authorization: `Bearer ${TEST_KEYS[as]}` },
    });

  it('seeds 300 registrations, deterministic on every run', async () => {
    const { rows } = await db.query(
      'SELECT count(*)::int AS n, min(registration_id) AS first, max(registered_at) AS last FROM ambit_demo.birth_registrations',
    );
    assert.equal(rows[0]?.n, BIRTH_ROWS);
    assert.equal(rows[0]?.first, 'br-20001');
  });

  it('spreads both sexes over every district, so a filter on the two together finds someone', async () => {
    const { rows } = await db.query(
      'SELECT district, count(DISTINCT sex)::int AS sexes FROM ambit_demo.birth_registrations GROUP BY district',
    );
    assert.equal(rows.length, 6);
    for (const row of rows) assert.equal(row.sexes, 2, row.district);
  });

  it('serves the same records as a snapshot and live to the caseworker', async () => {
    const snapshot = await get(`${BIRTHS}?district=lakeside&limit=500`, 'caseworker');
    const live = await get(`${BIRTHS_LIVE}?district=lakeside&limit=500`, 'caseworker');
    assert.equal(snapshot.statusCode, 200, snapshot.body);
    assert.equal(live.statusCode, 200, live.body);
    assert.deepEqual(live.json().data, snapshot.json().data);
    assert.equal(snapshot.json().data.length, 50);
    const record = (await get(`${BIRTHS_LIVE}/br-20042`, 'caseworker')).json();
    assert.equal(record.registration_id, 'br-20042');
    assert.match(record.registered_at, /^2025-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
  });

  it('shows the dataset to the catalogue viewer without rows, and keeps it from other personas', async () => {
    assert.equal((await get('/v1/datasets/vital_events', 'catalog_viewer')).statusCode, 200);
    assert.equal((await get(BIRTHS, 'catalog_viewer')).statusCode, 403);
    assert.equal((await get(BIRTHS, 'health_planner')).statusCode, 403);
  });

  it('starts without the dataset, saying why, when another session holds the table', async (t) => {
    if (db.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
    // A forgotten `BEGIN; SELECT ... FROM ambit_demo.birth_registrations` in psql: reseeding has to drop the table,
    // and used to wait for that session for as long as it stayed open, the demo printing nothing meanwhile.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT count(*) FROM ambit_demo.birth_registrations');
      const errors: string[] = [];
      const used = await prepareDemoPostgres(db.url, (line) => errors.push(line));
      assert.equal(used, false);
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.match(errors[0] ?? '', /55P03/);
      assert.match(errors[0] ?? '', /another session holds ambit_demo\.birth_registrations/);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // Released: the next start seeds again, and the table the relay reads is still whole meanwhile.
    assert.equal(await prepareDemoPostgres(db.url, () => {}), true);
    const { rows } = await db.query('SELECT count(*)::int AS n FROM ambit_demo.birth_registrations');
    assert.equal(rows[0]?.n, BIRTH_ROWS);
  });

  it('leaves the file-only demo config untouched when DATABASE_URL is not set', () => {
    assert.doesNotMatch(readFileSync(join(DEMO_DIR, 'relay.yaml'), 'utf8'), /vital_events/);
  });
});

describe('demo: whether DATABASE_URL is used', () => {
  const prepare = async (url: string | undefined, seed: (url: string) => Promise<void>) => {
    const errors: string[] = [];
    const seeded: string[] = [];
    const used = await prepareDemoPostgres(
      url,
      (line) => errors.push(line),
      async (target) => {
        seeded.push(target);
        await seed(target);
      },
    );
    return { used, errors, seeded };
  };
  const succeed = async () => {};

  it('writes nothing to a server the relay would refuse, and starts without the dataset', async () => {
    // Reachable servers (127.1 is loopback to the resolver) that the relay refuses without TLS: seeding them
    // used to succeed, and then the relay refused the demo config and the demo did not start at all.
    for (const url of [
      'postgres://postgres:secret@127.1:5432/postgres',
      'postgres://postgres:secret@db.example.org:5432/postgres',
    ]) {
      const { used, errors, seeded } = await prepare(url, succeed);
      assert.equal(used, false, url);
      assert.deepEqual(seeded, [], url);
      assert.equal(errors.length, 1);
      assert.match(errors[0] ?? '', /must require TLS/);
      assert.doesNotMatch(errors[0] ?? '', /secret/);
    }
  });

  it('seeds a URL the relay accepts', async () => {
    for (const url of [
      'postgres://postgres@127.0.0.1:5432/postgres',
      'postgres://postgres@db.example.org:5432/postgres?sslmode=verify-full',
    ]) {
      const { used, errors, seeded } = await prepare(url, succeed);
      assert.equal(used, true, url);
      assert.deepEqual(seeded, [url]);
      assert.deepEqual(errors, []);
    }
  });

  it('starts without the dataset when seeding fails, naming only the reason', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { used, errors } = await prepare('postgres://postgres:secret@127.0.0.1:1/postgres', async () => {
      throw refused;
    });
    assert.equal(used, false);
    assert.match(errors[0] ?? '', /\(ECONNREFUSED\)/);
    assert.doesNotMatch(errors[0] ?? '', /secret/);
  });

  it("says the server's own reason when the server refuses the connection, never the URL", async () => {
    // As the driver raises it for a wrong password: the SQLSTATE alone (28P01) tells a new user nothing.
    const denied = Object.assign(new Error('password authentication failed for user "postgres"'), {
      code: '28P01',
      severity: 'FATAL',
    });
    const { used, errors } = await prepare('postgres://postgres:secret@127.0.0.1:5432/postgres', async () => {
      throw denied;
    });
    assert.equal(used, false);
    assert.deepEqual(errors, [
      'DATABASE_URL is set but the demo could not prepare schema ambit_demo (28P01: password authentication ' +
        'failed for user "postgres"); starting without it.',
    ]);
  });

  it('does nothing without DATABASE_URL', async () => {
    for (const url of [undefined, '']) {
      const { used, errors, seeded } = await prepare(url, succeed);
      assert.equal(used, false);
      assert.deepEqual(errors, []);
      assert.deepEqual(seeded, []);
    }
  });
});
