// The admin listener: each route's scope against every credential, its separation from the public listener, the
// redacted posture and capabilities, and the Prometheus metrics.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { listenLocal, sendRaw } from '../helpers/http-checks.ts';
import { assertProblem } from './assert-problem.ts';
import {
  closeHarness,
  type Harness,
  RELOAD_AUDIT_SECRET,
  RELOAD_KEYS,
  type ReloadPersona,
  startHarness,
} from './reload-fixture.ts';

const PEOPLE = '/v1/datasets/people/entities/person/records';

const ROUTES = [
  { method: 'GET', url: '/metrics', scope: 'relay:metrics_read', allowed: ['operator', 'metrics_only'] },
  {
    method: 'GET',
    url: '/admin/v1/capabilities',
    scope: 'relay:ops_read',
    allowed: ['operator', 'ops_only'],
  },
  { method: 'GET', url: '/admin/v1/posture', scope: 'relay:ops_read', allowed: ['operator', 'ops_only'] },
  { method: 'POST', url: '/admin/v1/reload', scope: 'relay:admin', allowed: ['operator', 'admin_only'] },
  {
    method: 'POST',
    url: '/admin/v1/datasets/people/tables/people_table/reload',
    scope: 'relay:admin',
    allowed: ['operator', 'admin_only'],
  },
] as const;

const PERSONAS = Object.keys(RELOAD_KEYS) as ReloadPersona[];

/** The status of one request sent byte for byte (no client normalizes its path). */
function rawStatus(port: number, method: string, path: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      ),
    );
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1])));
  });
}

describe('admin listener', () => {
  let h: Harness;
  const call = (method: string, url: string, headers: Record<string, string> = {}): Promise<Response> =>
    h.admin.inject({ method: method as 'GET', url, headers });
  const as = (persona: ReloadPersona) => ({ authorization: `Bearer ${RELOAD_KEYS[persona]}` });
  before(async () => {
    h = await startHarness();
  });
  after(() => closeHarness(h));

  describe('scope matrix', () => {
    for (const route of ROUTES) {
      for (const persona of PERSONAS) {
        const allowed = (route.allowed as readonly string[]).includes(persona);
        it(`${route.method} ${route.url} as ${persona}: ${allowed ? '200' : `403 (needs ${route.scope})`}`, async () => {
          const response = await call(route.method, route.url, as(persona));
          if (allowed) assert.equal(response.statusCode, 200, response.body.slice(0, 300));
          else assertProblem(response, 403, 'auth.scope_denied', `required scope: ${route.scope}`);
        });
      }
      it(`${route.method} ${route.url} without a credential: 401 auth.missing_credential`, async () => {
        // Both headers an API key may come in are named.
        assertProblem(
          await call(route.method, route.url),
          401,
          'auth.missing_credential',
          /Authorization: Bearer .*x-api-key/,
        );
      });
      it(`${route.method} ${route.url} with an unknown key: 401 auth.invalid_credential`, async () => {
        const response = await call(route.method, route.url, {
          authorization: 'Bearer not-a-key-0000000000000',
        });
        assertProblem(response, 401, 'auth.invalid_credential');
      });
    }

    it('checks the scope before it looks the table up: an unknown table is 403 for a non-admin', async () => {
      const response = await call('POST', '/admin/v1/datasets/nope/tables/nope/reload', as('ops_only'));
      assertProblem(response, 403, 'auth.scope_denied');
    });

    it('answers /healthz and /ready without a credential', async () => {
      assert.deepEqual((await call('GET', '/healthz')).json(), {
        status: 'ok',
        checks: { total: 1, ok: 1, failed: 0 },
      });
      assert.deepEqual((await call('GET', '/ready')).json(), {
        status: 'ok',
        checks: { total: 2, ok: 2, failed: 0 },
      });
    });

    it('ignores a reload request body of any type, or an empty one', async () => {
      const bodies = [
        { 'content-type': 'application/x-www-form-urlencoded', payload: 'x' },
        { 'content-type': 'application/json', payload: '' },
        { 'content-type': 'application/json', payload: '{not json' },
        { 'content-type': 'text/plain', payload: 'reload please' },
        { payload: 'x' },
      ];
      for (const url of ['/admin/v1/reload', '/admin/v1/datasets/people/tables/people_table/reload']) {
        for (const { payload, ...type } of bodies) {
          const response = await h.admin.inject({
            method: 'POST',
            url,
            headers: { ...as('operator'), ...type },
            payload,
          });
          assert.equal(response.statusCode, 200, `${url} ${JSON.stringify(type)}: ${response.body}`);
          assert.equal(JSON.parse(response.body).status, 'ok');
        }
      }
    });

    it('refuses a reload request body over 4 KiB before reading it', async () => {
      const response = await h.admin.inject({
        method: 'POST',
        url: '/admin/v1/reload',
        headers: { ...as('operator'), 'content-type': 'application/json' },
        payload: JSON.stringify({ pad: 'x'.repeat(5000) }),
      });
      assertProblem(response, 413, 'internal.payload_too_large');
      const unused = await h.admin.inject({
        method: 'POST',
        url: '/admin/v1/reload',
        headers: { ...as('operator'), 'content-type': 'text/plain' },
        payload: 'x'.repeat(5000),
      });
      assertProblem(unused, 413, 'internal.payload_too_large');
    });

    it('audits admin requests in the relay audit chain', () => {
      const records = readFileSync(`${h.fixture.dir}/audit.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).record);
      const reloads = records.filter(
        (record) => record.path === '/admin/v1/reload' && record.status_code === 200,
      );
      assert.ok(reloads.length >= 2);
      assert.equal(reloads[0].endpoint_kind, 'admin');
      assert.deepEqual(reloads[0].scopes_used, ['relay:admin']);
      // A table reload names its private table id only as a keyed hash, also when the table does not exist.
      const tableReload = records.find(
        (record) =>
          record.path === '/admin/v1/datasets/people/tables/{table_id}/reload' && record.status_code === 200,
      );
      assert.match(String(tableReload?.table_id_hash), /^hmac-sha256:[0-9a-f]{64}$/);
      // A dataset the relay does not serve is not written out: its text is the caller's.
      assert.ok(
        records.some((record) => record.path === '/admin/v1/datasets/{dataset_id}/tables/{table_id}/reload'),
      );
      assert.ok(!records.some((record) => /datasets\/nope/.test(record.path)));
      assert.ok(!records.some((record) => /people_table|tables\/nope/.test(record.path)));
      const denied = records.find((record) => record.path === '/metrics' && record.status_code === 403);
      assert.equal(denied?.error_code, 'auth.scope_denied');
      assert.equal(
        records.some((record) => record.path === '/healthz'),
        false,
        'probes are not audited by default',
      );
    });
  });

  describe('separation from the public listener', () => {
    for (const route of ROUTES) {
      it(`the public listener answers 404 to ${route.method} ${route.url}, even for an operator`, async () => {
        const response = await h.relay.app.inject({
          method: route.method,
          url: route.url,
          headers: as('operator'),
        });
        assertProblem(response, 404, 'http.not_found');
      });
    }

    it('the public listener answers 404 to other spellings of the admin paths, over a real connection', async () => {
      const port = await listenLocal(h.relay.app);
      const spellings = ['/metrics/', '//metrics', '/METRICS', '/admin/v1/reload/', '/admin//v1/reload'];
      spellings.push('/admin%2Fv1%2Freload', '/%61dmin/v1/reload', '/x/../admin/v1/posture', '/metrics;x');
      for (const path of spellings) {
        for (const method of ['GET', 'HEAD', 'POST']) {
          const status = await rawStatus(port, method, path, RELOAD_KEYS.operator);
          assert.equal(status, 404, `${method} ${path}`);
        }
      }
    });

    it('the public OpenAPI document describes no admin route', async () => {
      const response = await h.relay.app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: as('reader'),
      });
      assert.equal(response.statusCode, 200);
      const paths = Object.keys(response.json().paths);
      assert.ok(paths.some((path) => path.includes('/records')));
      assert.deepEqual(
        paths.filter((path) => path.startsWith('/admin') || path === '/metrics'),
        [],
      );
    });

    it('marks every admin answer no-store: refusals, unknown routes and answers given before any route', async () => {
      const answers = [
        await call('POST', '/admin/v1/reload'),
        await call('POST', '/admin/v1/reload', as('reader')),
        await call('GET', '/nowhere', as('operator')),
        await call('GET', `/admin/v1/posture?${'a'.repeat(9000)}`, as('operator')),
        await call('GET', '/admin/%zz', as('operator')),
      ];
      assert.deepEqual(
        answers.map((response) => [response.statusCode, response.headers['cache-control']]),
        [401, 403, 404, 414, 404].map((status) => [status, 'no-store']),
      );
      // Headers past the limit: answered by the server before any request object exists.
      const port = await listenLocal(h.admin);
      const huge = await sendRaw(
        port,
        `GET /metrics HTTP/1.1\r\nhost: a\r\nx-big: ${'b'.repeat(70_000)}\r\n\r\n`,
      );
      assert.deepEqual([huge.statusCode, huge.headers['cache-control']], [431, 'no-store']);
    });

    it('the admin listener serves no data route', async () => {
      assertProblem(await call('GET', `${PEOPLE}?limit=1`, as('reader')), 404, 'http.not_found');
      assertProblem(await call('GET', '/openapi.json', as('reader')), 404, 'http.not_found');
    });
  });

  describe('posture and capabilities', () => {
    it('capabilities list the admin routes with their scopes and what the relay can reload', async () => {
      const body = (await call('GET', '/admin/v1/capabilities', as('ops_only'))).json();
      assert.equal(body.product, 'ambit-relay');
      assert.deepEqual(body.listeners, { public: true, admin: true });
      assert.deepEqual(body.config, { verify: false, dry_run: false, apply: false });
      assert.deepEqual(body.supported_posture_tiers, ['restricted']);
      assert.equal(body.reload.all, true);
      assert.deepEqual(
        body.routes.find((route: { path: string }) => route.path === '/admin/v1/reload'),
        { method: 'POST', path: '/admin/v1/reload', scope: 'relay:admin' },
      );
    });

    it('posture reports the deployment shape and the data being served', async () => {
      const body = (await call('GET', '/admin/v1/posture', as('ops_only'))).json();
      assert.equal(body.component, 'ambit-relay');
      assert.equal(body.runtime.auth_mode, 'api_key');
      assert.equal(body.runtime.processes, 1);
      assert.deepEqual(body.relay.refresh_modes, { manual: 0, mtime: 1, interval: 1 });
      assert.equal(body.data.ready, true);
      assert.equal(body.data.generation, h.relay.runtime.state.generation?.version);
      // The file as written, the digest `sha256sum` prints: an operator can tell which file a relay runs.
      const fileDigest = createHash('sha256').update(readFileSync(h.fixture.configPath)).digest('hex');
      assert.equal(body.configuration.last_config_hash, `sha256:${fileDigest}`);
      assert.equal(body.security.cursor_secret, 'derived_from_audit_secret');
      assert.equal(body.security.api_keys, PERSONAS.length);
    });

    it('posture accepts tier=restricted and refuses other tiers', async () => {
      assert.equal((await call('GET', '/admin/v1/posture?tier=restricted', as('ops_only'))).statusCode, 200);
      assertProblem(
        await call('GET', '/admin/v1/posture?tier=full', as('ops_only')),
        400,
        'admin.posture_tier_unsupported',
      );
      // Given twice, even as the supported tier: one tier is asked for, and the detail says what was wrong.
      assertProblem(
        await call('GET', '/admin/v1/posture?tier=restricted&tier=restricted', as('ops_only')),
        400,
        'admin.posture_tier_unsupported',
        /may be given once/,
      );
    });

    it('neither names a secret, a path, an address, a connection string or an environment variable', async () => {
      const answers = [
        await call('GET', '/admin/v1/posture', as('ops_only')),
        await call('GET', '/admin/v1/capabilities', as('ops_only')),
      ];
      // A refusal or an error names none of them either: only the documents themselves count.
      assert.deepEqual(
        answers.map((response) => response.statusCode),
        [200, 200],
      );
      const text = answers.map((response) => response.body).join('\n');
      const forbidden = [
        RELOAD_AUDIT_SECRET,
        ...Object.values(RELOAD_KEYS),
        ...Object.values(RELOAD_KEYS).map((key) => fingerprintOf(key).slice('sha256:'.length)),
        h.fixture.dir,
        'people.csv',
        'districts.csv',
        'audit.jsonl',
        '127.0.0.1',
        'AUDIT_SECRET',
        '_HASH',
        'postgres://',
        'postgresql://',
        '/tmp',
      ];
      for (const needle of forbidden)
        assert.equal(text.includes(needle), false, `posture mentions ${needle}`);
      assert.doesNotMatch(text, /"[^"]*\/[^"]*\.(csv|xlsx|parquet|yaml|jsonl)"/);
    });
  });

  describe('metrics', () => {
    let text: string;
    before(async () => {
      await h.relay.app.inject({ method: 'GET', url: `${PEOPLE}?limit=2`, headers: as('reader') });
      await h.relay.app.inject({ method: 'GET', url: `${PEOPLE}?limit=2`, headers: as('reader') });
      await h.relay.app.inject({ method: 'GET', url: `${PEOPLE}/999999`, headers: as('reader') });
      await h.relay.app.inject({ method: 'GET', url: `${PEOPLE}?limit=2` });
      const response = await call('GET', '/metrics', as('metrics_only'));
      assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      assert.equal(response.headers['cache-control'], 'no-store');
      text = response.body;
    });
    const value = (series: string): number | undefined => {
      const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const records = 'method="GET",route="/v1/datasets/:dataset_id/entities/:entity/records"';
    const record = 'method="GET",route="/v1/datasets/:dataset_id/entities/:entity/records/:id"';

    it('counts requests by route template and status', () => {
      assert.ok((value(`ambit_relay_http_requests_total{${records},status="200"}`) ?? 0) >= 2);
      assert.ok((value(`ambit_relay_http_requests_total{${records},status="401"}`) ?? 0) >= 1);
      assert.ok((value(`ambit_relay_http_requests_total{${record},status="404"}`) ?? 0) >= 1);
      assert.doesNotMatch(
        text,
        /route="\/v1\/datasets\/people/,
        'labels are templates, never concrete paths',
      );
    });

    it('has a latency histogram per route with cumulative buckets, sum and count', () => {
      assert.match(text, /# TYPE ambit_relay_http_request_duration_seconds histogram/);
      const count = value(`ambit_relay_http_request_duration_seconds_count{${records}}`) ?? 0;
      assert.ok(count >= 3);
      assert.equal(value(`ambit_relay_http_request_duration_seconds_bucket{${records},le="+Inf"}`), count);
      const buckets = text
        .split('\n')
        .filter((line) => line.startsWith(`ambit_relay_http_request_duration_seconds_bucket{${records},`))
        .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
      assert.equal(buckets.length, 15);
      assert.deepEqual(
        buckets,
        [...buckets].sort((a, b) => a - b),
        'buckets are cumulative',
      );
      assert.ok((value(`ambit_relay_http_request_duration_seconds_sum{${records}}`) ?? -1) >= 0);
    });

    it('reports readiness, source loads, rows and the generation time', () => {
      assert.equal(value('ambit_relay_readiness_fully_ready'), 1);
      assert.equal(value('ambit_relay_readiness_ready_resources'), 2);
      assert.equal(value('ambit_relay_readiness_failed_resources'), 0);
      assert.equal(value('ambit_relay_readiness_not_ready_resources'), 0);
      assert.equal(value('ambit_relay_processes'), 1);
      assert.equal(value('ambit_relay_reloads_total{scope="all",trigger="startup",outcome="ok"}'), 1);
      assert.ok(
        (value('ambit_relay_source_loads_total{dataset="people",table="people_table",outcome="ok"}') ?? 0) >=
          1,
      );
      assert.equal(value('ambit_relay_source_rows{dataset="people",table="district_table"}'), 3);
      assert.match(
        text,
        /^ambit_relay_source_load_duration_seconds_count\{dataset="people",table="people_table"\} \d+$/m,
      );
      const loadedAt = value('ambit_relay_generation_loaded_timestamp_seconds') ?? 0;
      assert.ok(Math.abs(loadedAt - Date.now() / 1000) < 3600);
    });

    it('has a failed-reload series at 0 before any reload failed, so the first failure is an increase', () => {
      const failed = (scope: string, trigger: string) =>
        value(`ambit_relay_reloads_total{scope="${scope}",trigger="${trigger}",outcome="failed"}`);
      for (const [scope, trigger] of [
        ['all', 'startup'],
        ['all', 'admin'],
        ['table', 'admin'],
        ['table', 'mtime'],
        ['table', 'interval'],
      ] as const) {
        assert.equal(failed(scope, trigger), 0, `${scope}/${trigger}`);
      }
    });

    it('declares the live-scan families (empty without live sources)', () => {
      for (const family of [
        'ambit_relay_datasource_live_scans_total',
        'ambit_relay_datasource_live_scan_duration_seconds',
        'ambit_relay_datasource_live_scan_wait_seconds',
        'ambit_relay_datasource_live_scan_rows_total',
        'ambit_relay_datasource_live_scan_bytes_total',
      ]) {
        assert.match(text, new RegExp(`^# TYPE ${family} (counter|histogram)$`, 'm'));
      }
    });

    it('names no secret, key or path', () => {
      for (const needle of [
        RELOAD_AUDIT_SECRET,
        ...Object.values(RELOAD_KEYS),
        h.fixture.dir,
        'people.csv',
      ]) {
        assert.equal(text.includes(needle), false, needle);
      }
    });
  });
});
