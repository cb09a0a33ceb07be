// `--workers 2` over a source that answers each read with other data (a database written to while the workers read
// it): every worker loads it itself, so an admin reload that succeeds everywhere can still leave them serving
// different data, with different ETags and cursors. The reload says so, rather than answering a plain `ok`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { URL_ENV } from '../helpers/postgres-relay.ts';
import { until } from '../helpers/wait-until.ts';
import { call, DRAWS_TABLE, manualPeopleConfig, type Served, serve } from './relay-scale-fixture.ts';

function configText(): string {
  return manualPeopleConfig(
    'Differing data',
    `${DRAWS_TABLE}      - id: steady
        source: { type: postgres, connection_env: ${URL_ENV}, query: "SELECT 1 AS id, 'same' AS label" }
        primary_key: id
        schema: { fields: [{ name: id, type: integer, nullable: false }, { name: label, type: string }] }
`,
    `      - { name: draws, table: draws }
      - { name: steady, table: steady }
`,
  );
}

describe('an admin reload after which the workers serve different data', () => {
  let db: TestDatabase;
  let dir: string;
  let relay: Served;
  before(async () => {
    db = await openTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'ambit-differing-'));
    const configPath = join(dir, 'relay.yaml');
    writeFileSync(configPath, configText());
    relay = await serve({ configPath }, ['--workers', '2'], { [URL_ENV]: db.url });
  });
  after(async () => {
    await relay?.stop();
    rmSync(dir, { recursive: true, force: true });
    await db?.close();
  });

  const reload = (path: string) => call(`${relay.adminUrl}${path}`, { method: 'POST', as: 'operator' });

  it('names the tables whose data differs between workers, in the answer and in a warning', async () => {
    const all = await reload('/admin/v1/reload');
    assert.equal(all.status, 200, all.body);
    const body = JSON.parse(all.body);
    assert.equal(body.status, 'ok');
    assert.deepEqual(body.counts, { total: 2, succeeded: 2, failed: 0 });
    assert.deepEqual(body.differing_tables, [{ dataset_id: 'people', table_id: 'draws' }]);
    // Logged before the answer, but read from the relay's standard error through a pipe: it may come after it.
    await until('the reload warns that the workers differ', () =>
      /relay processes serve different data after the reload/.test(relay.output()),
    );

    const one = await reload('/admin/v1/datasets/people/tables/draws/reload');
    assert.equal(one.status, 200, one.body);
    assert.deepEqual(JSON.parse(one.body).differing_tables, [{ dataset_id: 'people', table_id: 'draws' }]);
  });

  it('answers a plain ok when the workers loaded the same data', async () => {
    const one = await reload('/admin/v1/datasets/people/tables/steady/reload');
    assert.equal(one.status, 200, one.body);
    assert.deepEqual(JSON.parse(one.body), { status: 'ok', counts: { reloaded: 1 } });
  });
});
