// What the admin reload routes answer for outcomes a small fixture cannot produce: a table reload that loaded every
// table (nothing was served yet), and failures or waits over many tables (a relay with hundreds of them).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { combineOutcomes } from '../../src/relay/admin/admin-backend.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import type { ReloadFailure, ReloadOutcome } from '../../src/relay/reload/reloader.ts';
import { assertProblem } from './assert-problem.ts';
import { createReloadFixture, type ReloadFixture, reloadEnv } from './reload-fixture.ts';
import { standInAdminApp } from './stand-in-admin-app.ts';

const TABLE = '/admin/v1/datasets/people/tables/people_table/reload';

/** `count` tables of one dataset, each with `code`. */
function tables(count: number, code: string): ReloadFailure[] {
  return Array.from({ length: count }, (_, k) => ({
    dataset_id: 'registry',
    table_id: `table_${String(k).padStart(3, '0')}`,
    code,
  }));
}

describe('admin reload answers', () => {
  let fixture: ReloadFixture;
  let admin: FastifyInstance;
  let next: ReloadOutcome;
  const post = (url: string) => admin.inject({ method: 'POST', url });
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    const loaded = loadRelayConfig(fixture.configPath, reloadEnv());
    admin = standInAdminApp(loaded, { reloadAll: async () => next, reloadTable: async () => next });
    await admin.ready();
  });
  after(async () => {
    await admin?.close();
    fixture?.remove();
  });

  it('counts every table a table reload loaded while nothing was served yet (it loads them all)', async () => {
    next = { ok: true, counts: { total: 2, succeeded: 2, failed: 0 }, failures: [], generation: 'g1' };
    const response = await post(TABLE);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { status: 'ok', counts: { reloaded: 2 } });
  });

  it('still answers reloaded 1 for a table reload that loaded that table only', async () => {
    next = { ok: true, counts: { total: 1, succeeded: 1, failed: 0 }, failures: [], generation: 'g1' };
    assert.deepEqual((await post(TABLE)).json(), { status: 'ok', counts: { reloaded: 1 } });
  });

  it('names at most 20 failed tables in the detail, and every one of them in failures', async () => {
    const failures = tables(300, 'ingest.source_unavailable');
    next = { ok: false, counts: { total: 300, succeeded: 0, failed: 300 }, failures, generation: 'g1' };
    const response = await post('/admin/v1/reload');
    assertProblem(response, 500, 'admin.reload_failed', /and 280 more failed to load/);
    const body = response.json();
    assert.ok(body.detail.length < 1500, `detail of ${body.detail.length} characters`);
    assert.match(body.detail, /registry\/table_019 \(ingest\.source_unavailable\)/);
    assert.doesNotMatch(body.detail, /table_020/);
    assert.equal(body.failures.length, 300);
  });

  it('names at most 20 tables waiting for their database, and every one of them in waiting', async () => {
    const waiting = tables(300, 'ingest.source_unavailable');
    next = {
      ok: false,
      counts: { total: 300, succeeded: 0, failed: 0 },
      failures: [],
      generation: undefined,
      firstLoadRunning: { waiting },
    };
    const response = await post('/admin/v1/reload');
    assertProblem(response, 503, 'schema.resource_unavailable', /and 280 more \(retried/);
    const body = response.json();
    assert.ok(body.detail.length < 1500, `detail of ${body.detail.length} characters`);
    assert.equal(body.waiting.length, 300);
  });

  it('says the previous data is still served when the workers, serving different generations, all failed', async () => {
    // Each worker runs its own refresh timers, so for a while they may serve different data: none serves nothing.
    const failures = [{ dataset_id: 'people', table_id: 'people_table', code: 'ingest.parse_error' }];
    const failedIn = (generation: string): ReloadOutcome => ({
      ok: false,
      counts: { total: 2, succeeded: 1, failed: 1 },
      failures,
      generation,
    });
    next = combineOutcomes([failedIn('g1'), failedIn('g2')]);
    const response = await post('/admin/v1/reload');
    assertProblem(response, 500, 'admin.reload_failed', /the previous data is still served/);
    assert.doesNotMatch(response.json().detail, /nothing is served/);
  });

  it('says nothing is served only when no worker serves anything', async () => {
    const failures = [{ dataset_id: 'people', table_id: 'people_table', code: 'ingest.parse_error' }];
    const none: ReloadOutcome = {
      ok: false,
      counts: { total: 2, succeeded: 1, failed: 1 },
      failures,
      generation: undefined,
    };
    next = combineOutcomes([none, none]);
    assertProblem(await post('/admin/v1/reload'), 500, 'admin.reload_failed', /nothing is served yet/);
  });
});
