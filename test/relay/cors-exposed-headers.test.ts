// What a listed origin's page may read of a relay answer: a CSV aggregate carries its disclosure control, freshness
// and completeness only in headers, so a browser client that cannot read them cannot tell a suppressed or truncated
// result from a complete one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PURPOSE, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

const LISTED = 'https://app.example.org';
const PAYMENTS = '/v1/datasets/social_protection/aggregates/payments_by_district';
const RESULT_HEADERS = ['x-ambit-disclosure-control', 'x-ambit-freshness', 'x-ambit-completeness'];

describe('headers a listed origin may read', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay({
      edit: (text) => text.replace('\nserver:\n', `\nserver:\n  cors:\n    allowed_origins: ["${LISTED}"]\n`),
    });
  });
  after(() => relay.close());

  it('include the result headers of a CSV aggregate', async () => {
    const csv = await relay.get(`${PAYMENTS}?f=csv`, {
      as: 'analyst',
      headers: { origin: LISTED, 'data-purpose': PURPOSE },
    });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.equal(csv.headers['access-control-allow-origin'], LISTED);
    const exposed = String(csv.headers['access-control-expose-headers'])
      .split(',')
      .map((name) => name.trim().toLowerCase());
    for (const name of [...RESULT_HEADERS, 'etag', 'link']) {
      assert.ok(csv.headers[name] !== undefined, `the answer carries ${name}`);
      assert.ok(exposed.includes(name), `${name} is not exposed: ${exposed.join(', ')}`);
    }
  });

  it('are exposed to listed origins only', async () => {
    const other = await relay.get(`${PAYMENTS}?f=csv`, {
      as: 'analyst',
      headers: { origin: 'https://evil.example.net', 'data-purpose': PURPOSE },
    });
    assert.equal(other.statusCode, 200, other.body);
    assert.equal(other.headers['access-control-expose-headers'], undefined);
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });
});
