// The admin `/ready` of a relay with several processes (the primary of `--workers N`): it is ready only when every
// process is, and its counts are those of the least loaded process, the failures those of the most failed one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ProcessStatus } from '../../src/relay/admin/admin-backend.ts';

import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { assertProblem } from './assert-problem.ts';
import { createReloadFixture, type ReloadFixture, reloadEnv } from './reload-fixture.ts';
import { standInAdminApp } from './stand-in-admin-app.ts';

const WAIT = { dataset_id: 'people', table_id: 'people_table', code: 'ingest.source_unavailable' };

function worker(loaded: number, failed: number, waiting: ProcessStatus['waiting'] = []): ProcessStatus {
  const ready = waiting.length === 0 && loaded + failed === 3;
  return {
    running: true,
    ready,
    readiness: { total: 3, loaded, failed },
    waiting,
    generation: ready ? 'g1' : undefined,
    loadedAt: ready ? 1 : undefined,
  };
}

describe('admin /ready over several relay processes', () => {
  let fixture: ReloadFixture;
  let admin: FastifyInstance;
  let statuses: ProcessStatus[] = [];
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    const loaded = loadRelayConfig(fixture.configPath, reloadEnv());
    admin = standInAdminApp(
      loaded,
      {
        reloadAll: async () => assert.fail('no reload here'),
        reloadTable: async () => assert.fail('no reload here'),
        status: async () => statuses,
      },
      { authenticate: () => assert.fail('/ready needs no credential'), processes: 3 },
    );
    await admin.ready();
  });
  after(async () => {
    await admin?.close();
    fixture?.remove();
  });

  it('answers 503 while one process is behind, with the least loaded and the most failed counts', async () => {
    statuses = [worker(3, 0), worker(1, 0, [WAIT]), worker(2, 1)];
    const response = await admin.inject({ method: 'GET', url: '/ready' });
    assertProblem(response, 503, 'schema.resource_unavailable', /^1 of 3 tables loaded; 1 waiting/);
    assert.equal(response.headers['retry-after'], '5');
    const body = response.json();
    assert.equal(body.total_count, 3);
    assert.equal(body.loaded_count, 1);
    assert.equal(body.failed_count, 1);
    assert.equal(body.not_ready_count, 2);
    assert.equal(body.waiting_count, 1);
    assert.deepEqual(body.waiting, [WAIT]);
  });

  it('names a table once however many processes wait for it', async () => {
    statuses = [worker(1, 0, [WAIT]), worker(2, 0, [WAIT])];
    const body = (await admin.inject({ method: 'GET', url: '/ready' })).json();
    assert.equal(body.loaded_count, 1);
    assert.deepEqual(body.waiting, [WAIT]);
    assert.equal(body.waiting_count, 1);
  });

  it('says when a process that is not running (or not answering) is why nothing counts as loaded', async () => {
    const down: ProcessStatus = {
      running: false,
      ready: false,
      readiness: { total: 3, loaded: 0, failed: 0 },
      waiting: [],
      generation: undefined,
      loadedAt: undefined,
    };
    statuses = [down, worker(3, 0), worker(3, 0)];
    const response = await admin.inject({ method: 'GET', url: '/ready' });
    assertProblem(
      response,
      503,
      'schema.resource_unavailable',
      /^0 of 3 tables loaded; 1 of 3 relay processes not running or not answering \(starting, being started again, or stopped\), counted as none loaded$/,
    );
    assert.equal(response.json().loaded_count, 0);
  });

  it('answers 200 once every process is ready', async () => {
    statuses = [worker(3, 0), worker(2, 1)];
    const response = await admin.inject({ method: 'GET', url: '/ready' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { status: 'ok', checks: { total: 3, ok: 2, failed: 1 } });
  });
});
