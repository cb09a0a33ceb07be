// The relay admin listener in OIDC mode against a real OpenID provider: each admin scope, granted directly or
// through scope_map, opens exactly its routes; refused tokens are 401 with the RFC 6750 challenge.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { oidcAuthBlock, startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.ts';
import { assertProblem } from './assert-problem.ts';
import { createReloadFixture, type ReloadFixture, reloadEnv } from './reload-fixture.ts';

const OPERATOR_ROLE = 'registry.operator';

const ROUTES = [
  { method: 'GET', url: '/metrics', scope: 'relay:metrics_read' },
  { method: 'GET', url: '/admin/v1/capabilities', scope: 'relay:ops_read' },
  { method: 'GET', url: '/admin/v1/posture', scope: 'relay:ops_read' },
  { method: 'POST', url: '/admin/v1/reload', scope: 'relay:admin' },
  { method: 'POST', url: '/admin/v1/datasets/people/tables/people_table/reload', scope: 'relay:admin' },
] as const;
const SCOPES = ['relay:admin', 'relay:ops_read', 'relay:metrics_read'] as const;

describe('relay admin listener in OIDC mode (real IdP)', () => {
  let idp: TestOidcProvider;
  let fixture: ReloadFixture;
  let relay: RelayApp;
  let admin: FastifyInstance;
  const call = (method: string, url: string, token?: string) =>
    admin.inject({
      method: method as 'GET',
      url,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  before(async () => {
    idp = await startOidcProvider({ scopes: [...SCOPES, 'people:rows', OPERATOR_ROLE] });
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    const oidc = oidcAuthBlock(idp, [
      'scope_map:',
      `  ${OPERATOR_ROLE}: [relay:admin, relay:ops_read, relay:metrics_read]`,
    ]);
    const text = readFileSync(fixture.configPath, 'utf8').replace(/\nauth:\n[\s\S]*?\naudit:/, `\n${oidc}`);
    assert.ok(text.includes('mode: oidc') && !text.includes('api_keys'));
    writeFileSync(fixture.configPath, text);
    relay = createRelayApp(loadRelayConfig(fixture.configPath, reloadEnv()), {
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
    });
    await relay.loaded;
    admin = relay.admin as FastifyInstance;
    await admin.ready();
  });
  after(async () => {
    await relay?.close();
    fixture?.remove();
    await idp?.close();
  });

  for (const scope of SCOPES) {
    it(`a token holding only ${scope} opens exactly the routes that need it`, async () => {
      const token = await idp.getToken([scope]);
      for (const route of ROUTES) {
        const response = await call(route.method, route.url, token);
        if (route.scope === scope) assert.equal(response.statusCode, 200, `${route.url}: ${response.body}`);
        else assertProblem(response, 403, 'auth.scope_denied', `required scope: ${route.scope}`);
      }
    });
  }

  it('a role mapped to the admin scopes through scope_map opens every admin route', async () => {
    const token = await idp.getToken([OPERATOR_ROLE]);
    for (const route of ROUTES) {
      const response = await call(route.method, route.url, token);
      assert.equal(response.statusCode, 200, `${route.url}: ${response.body}`);
    }
  });

  it('a data-plane token opens no admin route', async () => {
    const token = await idp.getToken(['people:rows']);
    for (const route of ROUTES)
      assertProblem(await call(route.method, route.url, token), 403, 'auth.scope_denied');
  });

  it('refuses a missing, malformed or foreign-audience token with 401 and a Bearer challenge', async () => {
    const foreign = await idp.getToken(['relay:admin'], { audience: 'https://another-relay.test/api' });
    for (const route of ROUTES) {
      assertProblem(await call(route.method, route.url), 401, 'auth.missing_credential');
      const garbage = await call(route.method, route.url, 'garbage');
      assertProblem(garbage, 401, 'auth.malformed_credential');
      assert.match(String(garbage.headers['www-authenticate']), /^Bearer /);
      assertProblem(await call(route.method, route.url, foreign), 401, 'auth.audience_mismatch');
    }
  });
});
