// The admin listener's own requests in the relay's HTTP metrics: the same families as the public listener's, each
// series labelled listener="admin", counted apart from the public routes of the same template (/healthz, /ready).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  closeHarness,
  type Harness,
  RELOAD_KEYS,
  type ReloadPersona,
  startHarness,
} from './reload-fixture.ts';

describe('admin listener requests in the metrics', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => closeHarness(h));
  const call = (url: string, as?: ReloadPersona) =>
    h.admin.inject({
      method: 'GET',
      url,
      headers: as === undefined ? {} : { authorization: `Bearer ${RELOAD_KEYS[as]}` },
    });
  /** One scrape: the value of a series, 0 when it is absent. */
  const scrape = async () => {
    const body = (await call('/metrics', 'metrics_only')).body;
    return {
      body,
      value(series: string): number {
        const line = body.split('\n').find((candidate) => candidate.startsWith(`${series} `));
        return line === undefined ? 0 : Number(line.slice(series.length + 1));
      },
    };
  };
  const admin = (route: string, status: number) =>
    `ambit_relay_http_requests_total{method="GET",route="${route}",listener="admin",status="${status}"}`;

  it('counts them by route and status, refusals included, apart from the public listener', async () => {
    await h.relay.app.inject({
      method: 'GET',
      url: '/v1/datasets',
      headers: { authorization: `Bearer ${RELOAD_KEYS.reader}` },
    });
    const before = await scrape();
    await call('/admin/v1/capabilities', 'operator');
    await call('/admin/v1/capabilities', 'ops_only');
    await call('/admin/v1/capabilities', 'reader');
    await call('/admin/v1/posture');
    await call('/healthz');
    await h.relay.app.inject({ method: 'GET', url: '/healthz' });
    await h.relay.app.inject({ method: 'GET', url: '/healthz' });
    const now = await scrape();
    const delta = (series: string) => now.value(series) - before.value(series);
    assert.equal(delta(admin('/admin/v1/capabilities', 200)), 2);
    assert.equal(delta(admin('/admin/v1/capabilities', 403)), 1);
    assert.equal(delta(admin('/admin/v1/posture', 401)), 1);
    // The first scrape, counted once it was answered.
    assert.equal(delta(admin('/metrics', 200)), 1);
    // /healthz is a route of both listeners: each counts its own.
    assert.equal(delta(admin('/healthz', 200)), 1);
    assert.equal(delta('ambit_relay_http_requests_total{method="GET",route="/healthz",status="200"}'), 2);
    const latency = 'ambit_relay_http_request_duration_seconds_count';
    assert.equal(delta(`${latency}{method="GET",route="/admin/v1/capabilities",listener="admin"}`), 3);
  });

  it("leaves the public listener's series as they were, without a listener label", async () => {
    const { body } = await scrape();
    assert.match(
      body,
      /^ambit_relay_http_requests_total\{method="GET",route="\/v1\/datasets",status="200"\} \d+$/m,
    );
    assert.doesNotMatch(body, /route="\/v1\/[^"]*",listener=/);
    assert.doesNotMatch(body, /listener="(?!admin")/);
  });
});
