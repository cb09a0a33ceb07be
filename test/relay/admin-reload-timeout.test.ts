// A reload can take longer than `server.request_timeout` (a large table): its answer must still be the reload's
// outcome, not a 504 while the reload goes on and its result is lost to the operator. Unauthenticated requests
// keep the time-out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';

import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import type { ReloadOutcome } from '../../src/relay/reload/reloader.ts';
import { assertProblem } from './assert-problem.ts';
import { createReloadFixture, RELOAD_KEYS, type ReloadFixture, reloadEnv } from './reload-fixture.ts';
import { standInAdminApp } from './stand-in-admin-app.ts';

const TIMEOUT_MS = 50;
/** Well past the time-out and its sweep: the request would have been answered 504 by then. */
const RELOAD_MS = 400;

describe('an admin reload slower than the request time-out', () => {
  let fixture: ReloadFixture;
  let admin: FastifyInstance;
  const slow = async (): Promise<ReloadOutcome> => {
    await new Promise((resolve) => setTimeout(resolve, RELOAD_MS));
    return { ok: true, counts: { reloaded: 1, unchanged: 0, failed: 0 } } as unknown as ReloadOutcome;
  };
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    admin = standInAdminApp(
      loadRelayConfig(fixture.configPath, reloadEnv()),
      { reloadAll: slow, reloadTable: slow },
      {
        authenticate: (request) => {
          if (request.headers.authorization !== `Bearer ${RELOAD_KEYS.operator}`) {
            // An unauthenticated caller that never finishes: a stalled check must still time out.
            return new Promise(() => {});
          }
          return {
            id: 'operator',
            authMode: 'api_key',
            scopes: new Set(['relay:admin']),
            credentialTag: 'op',
          };
        },
        processes: 1,
        requestTimeoutMs: TIMEOUT_MS,
      },
    );
    await admin.ready();
  });
  after(async () => {
    await admin?.close();
    fixture?.remove();
  });

  for (const url of ['/admin/v1/reload', '/admin/v1/datasets/people/tables/people_table/reload']) {
    it(`POST ${url} answers the reload's outcome`, async () => {
      const response = await admin.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${RELOAD_KEYS.operator}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 'ok');
    });
  }

  it('keeps the time-out for a request whose credential check does not finish', async () => {
    const response = await admin.inject({ method: 'POST', url: '/admin/v1/reload' });
    assertProblem(response, 504, 'internal.timeout');
  });
});
