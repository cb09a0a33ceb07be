import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import { systemRandom } from '../../platform/random.ts';
import type { SourceConnectionConfig } from '../config/schema.ts';
import type { AddressPolicy } from './classify-address.ts';
import { createHttpTransport, type ResolveAll, TransportError } from './create-http-transport.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import { auditCodeOf } from './failure-reason.ts';

/** A resolver that answers every name with `addresses`, as DNS would; no real lookup is made. */
const resolvingTo =
  (...addresses: string[]): ResolveAll =>
  (_hostname, _options, callback) => {
    setImmediate(() =>
      callback(
        null,
        addresses.map((address) => ({ address, family: isIP(address) })),
      ),
    );
  };

const LOCAL_DEV: AddressPolicy = {
  allow_insecure_localhost: true,
  allow_insecure_private_network: true,
  allow_link_local: false,
};

const REQUEST = { path: '/v1/x', headers: { authorization: 'Bearer relay-secret' }, timeoutMs: 2000 };

async function refusal(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TransportError, String(error));
    return error;
  }
  assert.fail('expected a transport error');
}

describe('http transport: plain http only to local addresses', () => {
  let server: Server;
  let port: number;
  let connections: number;

  before(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"data":[{}]}');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    connections = 0;
  });

  it('refuses a name resolving to a public address (or to one among local ones), whatever the flags', async () => {
    for (const addresses of [['203.0.113.10'], ['127.0.0.1', '203.0.113.10']]) {
      const transport = createHttpTransport(`http://relay.test:${port}`, LOCAL_DEV, {
        maxSockets: 1,
        resolve: resolvingTo(...addresses),
      });
      const error = await refusal(transport.send(REQUEST));
      transport.close();
      assert.equal(error.kind, 'address_denied');
      assert.match(error.message, /resolves to 203\.0\.113\.10: http never reaches a public address/);
    }
    assert.equal(connections, 0);
  });

  it('refuses a public IP literal over http before connecting', async () => {
    const transport = createHttpTransport('http://203.0.113.10:8080', LOCAL_DEV, { maxSockets: 1 });
    const error = await refusal(transport.send(REQUEST));
    transport.close();
    assert.equal(error.kind, 'address_denied');
  });

  it('still reaches a name resolving to loopback under allow_insecure_localhost', async () => {
    const transport = createHttpTransport(
      `http://relay.test:${port}`,
      { ...LOCAL_DEV, allow_insecure_private_network: false },
      { maxSockets: 1, resolve: resolvingTo('127.0.0.1') },
    );
    const response = await transport.send(REQUEST);
    transport.close();
    assert.equal(response.status, 200);
    assert.equal(connections, 1);
  });

  it('answers the read 503 source.unavailable (reason source.address_denied), without retrying', async () => {
    const config: SourceConnectionConfig = {
      base_url: `http://relay.test:${port}/`,
      token_env: 'T',
      ...LOCAL_DEV,
      max_in_flight: 2,
      timeout: 2000,
      retry: { max_attempts: 3, base_delay: 100, max_delay: 1000, max_retry_after: 5000 },
      bulk_mode: 'none',
      bulk_max_values: 100,
      coalesce_reads: false,
    };
    const sleeps: number[] = [];
    const reader = createRelayConnector({ relay: config }, new Map([['relay', 'relay-secret']]), {
      clock: systemClock,
      random: systemRandom,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      transportFor: (connection) =>
        createHttpTransport(connection.base_url, connection, {
          maxSockets: 1,
          resolve: resolvingTo('203.0.113.10'),
        }),
    });
    const read = reader.read({
      binding: {
        connector: 'registry_data_api',
        connection: 'relay',
        dataset: 'd',
        entity: 'e',
        lookup: { input: 'target.identifiers.national_id', field: 'national_id' },
        fields: ['deceased'],
      },
      value: 'FAKE-1',
      purpose: 'https://p.example/x',
      requestId: 'corr-1',
    });
    const problem = await read.then(
      () => assert.fail('expected a problem'),
      (error: unknown) => error,
    );
    reader.close();
    assert.ok(isProblem(problem), String(problem));
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem)],
      [503, 'source.unavailable', 'source.address_denied'],
    );
    assert.deepEqual(sleeps, []);
    assert.equal(connections, 0);
  });
});
