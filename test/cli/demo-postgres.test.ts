// `ambit demo` with DATABASE_URL: the PostgreSQL dataset is seeded, joins the demo config, and is served both as a
// snapshot and live to the personas granted it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/platform/log.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { BIRTH_ROWS, seedDemoPostgres, withPostgresDataset } from '../../src/cli/demo-postgres.ts';
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

  it('leaves the file-only demo config untouched when DATABASE_URL is not set', () => {
    assert.doesNotMatch(readFileSync(join(DEMO_DIR, 'relay.yaml'), 'utf8'), /vital_events/);
  });
});
