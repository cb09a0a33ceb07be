// A reload whose live table no longer passes its check: the admin answer says what still serves (live reads go on
// against the database; a live table holds no previous data to keep serving).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';

import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import type { ReloadOutcome } from '../../src/relay/reload/reloader.ts';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import {
  OPERATOR_KEY,
  type PostgresRelay,
  postgresRelayConfig,
  startPostgresRelay,
  URL_ENV,
} from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { ITEMS, openLiveTestDatabase } from './postgres-live-fixture.ts';
import { standInAdminApp } from './stand-in-admin-app.ts';

const table = (id: string, name: string, live: boolean) => `
      - id: ${id}
        ${postgresSource({ table: name })}${live ? '\n        materialization: live' : ''}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: label, type: string }] }`;

const DATASETS = `  - id: registry
    title: Registry
    tables:${table('items', 'gadgets', true)}${table('copies', 'copied', false)}
    entities:
      - { name: items, table: items, ${ACCESS} }
      - { name: copies, table: copies, ${ACCESS} }`;

describe('a reload whose live table fails its check', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openLiveTestDatabase();
    for (const name of ['gadgets', 'copied']) {
      await db.query(`CREATE TABLE ${name} (id integer PRIMARY KEY, label text)`);
      await db.query(`INSERT INTO ${name} VALUES (1, 'one')`);
    }
    relay = await startPostgresRelay(DATASETS, db.url, { admin: true });
    // A declared column is renamed: the check fails, while reads of the other columns still work.
    await db.query('ALTER TABLE gadgets RENAME COLUMN label TO name');
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  it('a table reload says live reads go on against the database, not that previous data is served', async () => {
    const response = await relay.admin('POST', '/admin/v1/datasets/registry/tables/items/reload');
    assertProblem(response, 500, 'admin.reload_failed', /live reads continue against the database/);
    assert.doesNotMatch(response.json().detail, /previous data/);
    assert.deepEqual(response.json().failures, [
      { dataset_id: 'registry', table_id: 'items', code: 'ingest.strict_extra_column' },
    ]);
  });

  it('a reload of everything also says the snapshot tables keep the data they had', async () => {
    const response = await relay.admin('POST', '/admin/v1/reload');
    assertProblem(response, 500, 'admin.reload_failed', /live reads continue against the database/);
    assert.match(response.json().detail, /other tables keep their previous data/);
    assert.equal((await relay.get('/v1/datasets/registry/entities/copies/records/1')).statusCode, 200);
    assert.equal((await relay.get(`${ITEMS}/1?fields=id`)).statusCode, 200);
  });
});

describe('a live table that fails its check in some relay processes only', () => {
  it('says live reads go on in every process, not that answers differ between them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-live-reload-'));
    const env = {
      READER_HASH: fingerprintOf('unused-reader-key-000000000000000001'),
      OPERATOR_HASH: fingerprintOf(OPERATOR_KEY),
      AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
      [URL_ENV]: 'postgres://reader@127.0.0.1/registry',
    };
    const loaded = loadRelayConfigText(
      postgresRelayConfig(DATASETS, join(dir, 'audit.jsonl'), true),
      env,
      dir,
    );
    // What the primary of `--workers 2` answers when the check failed in one worker.
    const split: ReloadOutcome = {
      ok: false,
      counts: { total: 1, succeeded: 0, failed: 1 },
      failures: [{ dataset_id: 'registry', table_id: 'items', code: 'ingest.query_failed' }],
      // A live table's version is its config's digest: the same in the processes where the check passed.
      generation: 'g1',
      splitProcesses: { failed: 1, total: 2 },
    };
    const admin = standInAdminApp(loaded, { reloadAll: async () => split, reloadTable: async () => split });
    try {
      const response = await admin.inject({
        method: 'POST',
        url: '/admin/v1/datasets/registry/tables/items/reload',
        headers: { authorization: `Bearer ${OPERATOR_KEY}` },
      });
      assertProblem(response, 500, 'admin.reload_failed', /in 1 of 2 relay processes; live reads continue/);
      assert.doesNotMatch(response.json().detail, /previous data|answers differ/);
      assert.deepEqual(response.json().processes, { failed: 1, total: 2 });
    } finally {
      await admin.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
