// Smoke test of the harness: the demo relay answers a scoped read.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

describe('demo relay harness', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('serves a filtered household page to the caseworker', async () => {
    const response = await relay.get(
      '/v1/datasets/social_protection/entities/households/records?district=willowbank',
      {
        as: 'caseworker',
      },
    );
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.data.length, 10);
    assert.ok(body.data.every((row: { district: string }) => row.district === 'willowbank'));
  });
});
