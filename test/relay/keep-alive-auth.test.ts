// Keys on a kept-alive connection: every request is authenticated on its own, whatever the connection sent before.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';

const DATASET = '/v1/datasets/social_protection/entities/households/records?limit=1';

describe('API keys on one kept-alive connection', () => {
  let relay: TestRelay;
  let base: string;
  // One socket for every request of the test.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  before(async () => {
    relay = await startDemoRelay();
    await relay.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(relay.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    agent.destroy();
    await relay.close();
  });

  const get = (path: string, key: string) =>
    new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
      const req = httpRequest(
        `${base}${path}`,
        { agent, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('rejects a wrong key after a right one, and answers each key with its own scopes', async () => {
    const first = await get(DATASET, TEST_KEYS.caseworker);
    assert.equal(first.status, 200);
    const wrong = await get(DATASET, `${TEST_KEYS.caseworker}x`);
    assert.equal(wrong.status, 401);
    // A key without scopes on this dataset, on the same connection, gets its own answer.
    const other = await get(DATASET, TEST_KEYS.operator);
    assert.equal(other.status, 403);
    const again = await get(DATASET, TEST_KEYS.caseworker);
    assert.equal(again.status, 200);
    assert.equal(first.socket, again.socket, 'all requests went over one connection');
    assert.equal(first.socket, wrong.socket);
  });
});
