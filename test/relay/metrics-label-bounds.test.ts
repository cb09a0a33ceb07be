// A caller cannot make the relay's metrics grow: every label value comes from the config or a fixed set, so
// requests with made-up paths, methods, ids, query strings or Accept values add to existing series, never new ones.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parsePrometheusText } from '../helpers/parse-prometheus-text.ts';
import { closeHarness, type Harness, RELOAD_KEYS, startHarness } from './reload-fixture.ts';

type Listener = 'public' | 'admin';

/** One of each request shape, with names, ids and header values made up anew on every call. */
function hostileRequests(): {
  listener: Listener;
  method: string;
  url: string;
  headers?: Record<string, string>;
}[] {
  const made = () => `x${randomUUID().replaceAll('-', '')}`;
  const odd = `${made()}%22%5C%0A"\\`;
  const requests: ReturnType<typeof hostileRequests> = [];
  for (const listener of ['public', 'admin'] as const) {
    requests.push(
      { listener, method: 'GET', url: `/${made()}/${odd}` },
      { listener, method: 'PROPFIND', url: `/${made()}` },
      { listener, method: 'DELETE', url: '/metrics' },
      { listener, method: 'GET', url: `/healthz?${made()}=${odd}` },
      { listener, method: 'OPTIONS', url: `/${made()}` },
    );
  }
  const ds = '/v1/datasets/people';
  requests.push(
    { listener: 'public', method: 'GET', url: `/v1/datasets/${made()}` },
    { listener: 'public', method: 'HEAD', url: `/v1/datasets/${made()}` },
    { listener: 'public', method: 'GET', url: `${ds}/entities/${made()}/records` },
    { listener: 'public', method: 'GET', url: `${ds}/entities/person/records/${odd}` },
    { listener: 'public', method: 'GET', url: `${ds}/entities/person/records?district=${odd}&${made()}=1` },
    { listener: 'public', method: 'GET', url: `${ds}/aggregates/${made()}` },
    {
      listener: 'public',
      method: 'POST',
      url: `${ds}/aggregates/${made()}/query`,
      headers: { 'content-type': 'application/json' },
    },
    {
      listener: 'public',
      method: 'GET',
      url: `${ds}/entities/person/records`,
      headers: { accept: `application/${made()}` },
    },
    { listener: 'public', method: 'GET', url: '/metadata/dcat', headers: { accept: `text/${made()}` } },
    { listener: 'admin', method: 'POST', url: `/admin/v1/datasets/${made()}/tables/${made()}/reload` },
    { listener: 'admin', method: 'GET', url: `/admin/v1/posture?tier=${made()}` },
  );
  return requests;
}

describe('metric labels under made-up requests', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => closeHarness(h));

  const send = async () => {
    for (const request of hostileRequests()) {
      const app = request.listener === 'admin' ? h.admin : h.relay.app;
      const response = await app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: { authorization: `Bearer ${RELOAD_KEYS.reader}`, ...request.headers },
        ...(request.method === 'POST' ? { payload: '{}' } : {}),
      });
      assert.ok(response.statusCode < 500, `${request.method} ${request.url}: ${response.statusCode}`);
    }
  };
  /** Every series of one scrape (name and labels), read by a strict parser of the text format. */
  const series = async (): Promise<Map<string, number>> => {
    const response = await h.admin.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${RELOAD_KEYS.metrics_only}` },
    });
    assert.equal(response.statusCode, 200);
    const found = new Map<string, number>();
    for (const family of parsePrometheusText(response.body).values()) {
      for (const sample of family.samples) {
        found.set(`${sample.name}${JSON.stringify(sample.labels)}`, sample.value);
      }
    }
    return found;
  };

  it('adds no series for new paths, methods, ids, query strings or Accept values, only counts', async () => {
    // The first round brings up each route template and status once (and the scrape's own series).
    await send();
    await series();
    await series();
    const known = await series();
    for (let round = 0; round < 3; round++) await send();
    const now = await series();
    const added = [...now.keys()].filter((key) => !known.has(key));
    assert.deepEqual(added, []);
    const templated = `ambit_relay_http_requests_total${JSON.stringify({
      method: 'GET',
      route: '/v1/datasets/:dataset_id/entities/:entity/records',
      status: '404',
    })}`;
    assert.equal((now.get(templated) ?? 0) - (known.get(templated) ?? 0), 3);
  });

  it('takes every route label from the route templates and every method from the registered ones', async () => {
    await send();
    const labels = [...(await series()).keys()].map((key) => JSON.parse(key.slice(key.indexOf('{'))));
    // The made-up requests are among those counted: their series carry route and method labels to check.
    assert.ok(
      labels.some(
        ({ route, method }) =>
          route === '/v1/datasets/:dataset_id/entities/:entity/records' && method === 'GET',
      ),
      JSON.stringify(labels),
    );
    for (const { route, method } of labels) {
      if (route !== undefined) assert.doesNotMatch(route, /x[0-9a-f]{32}|%|"|\\/, route);
      if (method !== undefined) assert.ok(['GET', 'HEAD', 'POST'].includes(method), method);
    }
  });
});
