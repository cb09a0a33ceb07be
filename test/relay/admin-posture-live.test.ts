// The posture tells an operator which tables are served from memory and which are read from their database on
// every request: `data.loaded_at` dates the snapshots only, never a live table's rows.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { OPERATOR_KEY, postgresRelayConfig, READER_KEY, URL_ENV } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { liveAndSnapshot } from './postgres-live-fixture.ts';
import { opsAdminApp } from './stand-in-admin-app.ts';

// Loading the config connects to nothing: no database is needed.
const ENV = {
  READER_HASH: fingerprintOf(READER_KEY),
  OPERATOR_HASH: fingerprintOf(OPERATOR_KEY),
  AUDIT_SECRET: 'test-audit-secret-postgres-0123456789',
  [URL_ENV]: 'postgres://reader@127.0.0.1:5432/registry',
};

/** A second dataset whose tables are live by its default, one of them set back to a snapshot. */
const INHERITED = `
  - id: archive
    title: Archive
    defaults: { materialization: live }
    tables:
      - id: cases
        ${postgresSource({ table: 'cases' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }] }
      - id: cases_copy
        ${postgresSource({ table: 'cases' })}
        materialization: snapshot
        primary_key: id
        schema: { fields: [{ name: id, type: integer }] }
    entities:
      - { name: cases, table: cases, access: { metadata_scope: "archive:metadata", read_scope: "archive:rows" } }`;

async function postureRelay(datasets: string): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-posture-live-'));
  const loaded = loadRelayConfigText(postgresRelayConfig(datasets, join(dir, 'audit.jsonl'), true), ENV, dir);
  const admin = opsAdminApp(loaded);
  try {
    const response = await admin.inject({ method: 'GET', url: '/admin/v1/posture' });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().relay;
  } finally {
    await admin.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('posture of a relay serving live tables', () => {
  it('counts the tables served from memory and those read live, a dataset default included', async () => {
    const relay = await postureRelay(`${liveAndSnapshot('people', 'people_copy')}${INHERITED}`);
    assert.equal(relay.tables, 4);
    assert.deepEqual(relay.materializations, { snapshot: 2, live: 2 });
  });

  it('counts no live table where none is', async () => {
    const relay = await postureRelay(`  - id: registry
    title: Registry
    tables:
      - id: people
        ${postgresSource({ table: 'people' })}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }] }
    entities:
      - { name: people, table: people, ${ACCESS} }`);
    assert.deepEqual(relay.materializations, { snapshot: 1, live: 0 });
  });
});
