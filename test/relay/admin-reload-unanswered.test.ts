// A reload no relay process answers: the primary of `--workers N` while every worker is stopping (SIGTERM to the
// whole process group during a reload) or being started again. The admin listener answers a retryable 503 with a
// stable code, not an internal error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';

import { reloadEverywhere } from '../../src/relay/cluster/reload-everywhere.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import type { ReloadOutcome } from '../../src/relay/reload/reloader.ts';
import { assertProblem } from './assert-problem.ts';
import { createReloadFixture, RELOAD_KEYS, type ReloadFixture, reloadEnv } from './reload-fixture.ts';
import { standInAdminApp } from './stand-in-admin-app.ts';

describe('an admin reload that no relay process answers', () => {
  let fixture: ReloadFixture;
  let admin: FastifyInstance;
  const logLines: string[] = [];
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    const loaded = loadRelayConfig(fixture.configPath, reloadEnv());
    // What the primary does with no worker listening: it asks nobody.
    const nobody = () => reloadEverywhere<never>([], async (): Promise<ReloadOutcome> => assert.fail());
    const destination = { write: (line: string) => logLines.push(line) } as unknown as NodeJS.WritableStream;
    admin = standInAdminApp(
      loaded,
      { reloadAll: nobody, reloadTable: nobody },
      {
        deps: {
          logger: createLogger({ name: 'unanswered-test', level: 'info', destination }),
          clock: systemClock,
          random: systemRandom,
        },
      },
    );
    await admin.ready();
  });
  after(async () => {
    await admin?.close();
    fixture?.remove();
  });

  for (const url of ['/admin/v1/reload', '/admin/v1/datasets/people/tables/people_table/reload']) {
    it(`POST ${url}: 503 schema.resource_unavailable with Retry-After, not an internal error`, async () => {
      const response = await admin.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${RELOAD_KEYS.operator}` },
      });
      assertProblem(response, 503, 'schema.resource_unavailable', /no relay process answered/);
      assert.equal(response.headers['retry-after'], '5');
      assert.equal(response.headers['cache-control'], 'no-store');
    });
  }

  it('logs it as a warning, not as an unhandled error', () => {
    const lines = logLines.map((line) => JSON.parse(line));
    assert.ok(!lines.some((line) => line.msg === 'unhandled error'), JSON.stringify(lines));
    assert.ok(lines.some((line) => line.level === 40 && /no relay process answered/.test(line.msg)));
  });
});
