import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../clock.ts';
import { silentLogger } from '../log.ts';
import type { MetricFamily } from '../metrics/metric-family.ts';
import { systemRandom } from '../random.ts';
import { createHttpServerApp } from './create-server.ts';
import { addGetRoute, addJsonPostRoute } from './fast-lane.ts';
import { createRouteMetrics } from './route-metrics.ts';

describe('createRouteMetrics', () => {
  const metrics = createRouteMetrics('test');
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    app = createHttpServerApp({
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
      requestTimeoutMs: 5000,
      corsAllowedOrigins: [],
      trustProxy: false,
    });
    metrics.instrument(app);
    app.get('/things/:id', async (request, reply) => {
      if ((request.params as { id: string }).id === 'missing') return reply.code(404).send({});
      return { ok: true };
    });
    app.post('/things', async () => ({ created: true }));
    app.get('/never', async () => ({}));
    // Served by the fast lane when the app has one, by Fastify otherwise: counted either way.
    addGetRoute(app, '/lane/:id', async (_request, reply) => reply.send('{}'));
    addJsonPostRoute(app, '/lane-posts', async (_request, reply) => reply.send('{}'));
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  after(() => app.close());

  const sample = (families: MetricFamily[], name: string, labels: Record<string, unknown>) => {
    for (const family of families) {
      for (const value of family.values) {
        if ((value.metricName ?? family.name) !== name) continue;
        if (Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted)) return value.value;
      }
    }
    return undefined;
  };

  it('counts responses per method, route template and status, over real connections', async () => {
    for (const path of ['/things/1', '/things/2', '/things/missing', '/lane/a', '/lane/b', '/lane/c']) {
      await (await fetch(`${base}${path}`)).arrayBuffer();
    }
    await (await fetch(`${base}/things`, { method: 'POST' })).arrayBuffer();
    const families = metrics.families();
    const total = 'test_http_requests_total';
    assert.equal(sample(families, total, { method: 'GET', route: '/things/:id', status: 200 }), 2);
    assert.equal(sample(families, total, { method: 'GET', route: '/things/:id', status: 404 }), 1);
    assert.equal(sample(families, total, { method: 'POST', route: '/things', status: 200 }), 1);
    assert.equal(sample(families, total, { method: 'GET', route: '/lane/:id', status: 200 }), 3);
  });

  it('counts the JSON POSTs the fast lane serves under their route', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${base}/lane-posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    }
    const total = 'test_http_requests_total';
    assert.equal(sample(metrics.families(), total, { method: 'POST', route: '/lane-posts', status: 200 }), 2);
  });

  it('records a latency histogram per route: cumulative buckets ending in +Inf, sum and count', () => {
    const families = metrics.families();
    const name = 'test_http_request_duration_seconds';
    const histogram = families.find((family) => family.name === name);
    assert.equal(histogram?.type, 'histogram');
    const lane = { method: 'GET', route: '/lane/:id' };
    assert.equal(sample(families, `${name}_count`, lane), 3);
    assert.equal(sample(families, `${name}_bucket`, { ...lane, le: '+Inf' }), 3);
    const buckets = (histogram?.values ?? [])
      .filter((value) => value.metricName === `${name}_bucket` && value.labels.route === '/lane/:id')
      .map((value) => value.value);
    assert.deepEqual(
      buckets,
      [...buckets].sort((a, b) => a - b),
    );
    assert.ok((sample(families, `${name}_sum`, lane) ?? -1) >= 0);
  });

  it('leaves routes nobody called out of the series', () => {
    const families = metrics.families();
    const routes = new Set(families.flatMap((family) => family.values.map((value) => value.labels.route)));
    assert.ok(routes.has('/things/:id'));
    assert.equal(routes.has('/never'), false);
  });
});
