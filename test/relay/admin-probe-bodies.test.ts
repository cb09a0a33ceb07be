// The probe bodies of both listeners as a probe written for the reference relay reads them: `/healthz` answers
// `{"status":"ok","checks":{"total":1,"ok":1,"failed":0}}`, and the 503 of `/ready` carries `failed_count`,
// `not_ready_count` and `unresolved_count` as numbers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Response } from 'light-my-request';
import type { ProcessStatus } from '../../src/relay/admin/admin-backend.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { loadingDemoRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { createReloadFixture, type ReloadFixture, reloadEnv } from './reload-fixture.ts';
import { standInAdminApp } from './stand-in-admin-app.ts';

const HEALTHY = { status: 'ok', checks: { total: 1, ok: 1, failed: 0 } };

/** What a probe written against the reference reads from a `/ready` 503. */
function assertReferenceNotReady(response: Response): void {
  assertProblem(response, 503, 'schema.resource_unavailable');
  const body = response.json();
  for (const member of ['failed_count', 'not_ready_count', 'unresolved_count']) {
    assert.equal(typeof body[member], 'number', `${member} in ${response.body}`);
  }
  // Every entity of a running relay names a declared table (config check refuses any other).
  assert.equal(body.unresolved_count, 0);
}

describe('probe bodies on the public listener', () => {
  it('/healthz answers the reference body, and /ready its 503 members while loading', async () => {
    const relay = loadingDemoRelay();
    try {
      assertReferenceNotReady(await relay.app.inject({ method: 'GET', url: '/ready' }));
      await relay.loaded;
      const health = await relay.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.deepEqual(health.json(), HEALTHY);
    } finally {
      await relay.close();
    }
  });
});

describe('probe bodies on the admin listener', () => {
  let fixture: ReloadFixture;
  let admin: FastifyInstance;
  let statuses: ProcessStatus[] = [];
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    admin = standInAdminApp(
      loadRelayConfig(fixture.configPath, reloadEnv()),
      {
        reloadAll: async () => assert.fail('no reload here'),
        reloadTable: async () => assert.fail('no reload here'),
        status: async () => statuses,
      },
      { authenticate: () => assert.fail('probes need no credential') },
    );
    await admin.ready();
  });
  after(async () => {
    await admin?.close();
    fixture?.remove();
  });

  it('/healthz answers the reference body', async () => {
    const response = await admin.inject({ method: 'GET', url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(response.json(), HEALTHY);
  });

  it('/ready answers 503 with the reference members while a process is still loading', async () => {
    statuses = [
      {
        running: true,
        ready: false,
        readiness: { total: 2, loaded: 1, failed: 0 },
        waiting: [],
        generation: undefined,
        loadedAt: undefined,
      },
    ];
    const response = await admin.inject({ method: 'GET', url: '/ready' });
    assertReferenceNotReady(response);
    assert.equal(response.json().not_ready_count, 1);
    assert.equal(response.headers['cache-control'], 'no-store');
  });
});
