import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { systemRandom } from '../../platform/random.ts';
import type { SourceConnectionConfig } from '../config/schema.ts';
import type { AddressPolicy } from './classify-address.ts';
import { createHttpTransport, type ResolveAll, TransportError } from './create-http-transport.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import { auditCodeOf } from './failure-reason.ts';
import { failure } from './relay-connector-fixture.ts';
import type { SourceLookup } from './source-reader.ts';

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

const LOOKUP: SourceLookup = {
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
    for (const addresses of [['93.184.215.14'], ['127.0.0.1', '93.184.215.14']]) {
      const transport = createHttpTransport(`http://relay.test:${port}`, LOCAL_DEV, {
        maxSockets: 1,
        resolve: resolvingTo(...addresses),
      });
      const error = await refusal(transport.send(REQUEST));
      transport.close();
      assert.equal(error.kind, 'address_denied');
      assert.match(error.message, /resolves to 93\.184\.215\.14: http never reaches a public address/);
    }
    assert.equal(connections, 0);
  });

  it('refuses a public IP literal over http before connecting', async () => {
    const transport = createHttpTransport('http://93.184.215.14:8080', LOCAL_DEV, { maxSockets: 1 });
    const error = await refusal(transport.send(REQUEST));
    transport.close();
    assert.equal(error.kind, 'address_denied');
  });

  it('checks a name again for every new socket: one rebound to a metadata address is refused then', async () => {
    const answers = [['127.0.0.1'], ['169.254.169.254']];
    let lookups = 0;
    const rebinding: ResolveAll = (hostname, options, callback) =>
      resolvingTo(...(answers[Math.min(lookups++, 1)] as string[]))(hostname, options, callback);
    const transport = createHttpTransport(`http://relay.test:${port}`, LOCAL_DEV, {
      maxSockets: 1,
      resolve: rebinding,
    });
    // `connection: close` makes the second request open a new socket.
    const first = await transport.send({ ...REQUEST, headers: { connection: 'close' } });
    const error = await refusal(transport.send(REQUEST));
    transport.close();
    assert.equal(first.status, 200);
    assert.equal(error.kind, 'address_denied');
    assert.match(error.message, /resolves to 169\.254\.169\.254: metadata addresses need allow_link_local/);
    assert.deepEqual([lookups, connections], [2, 1]);
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
          resolve: resolvingTo('93.184.215.14'),
        }),
    });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem)],
      [503, 'source.unavailable', 'source.address_denied'],
    );
    assert.deepEqual(sleeps, []);
    assert.equal(connections, 0);
  });
});

describe('http transport: a request that cannot be sent', () => {
  let server: Server;
  let port: number;
  let received: number;

  before(async () => {
    server = createServer((_request, response) => {
      received++;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"data":[{}]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    received = 0;
  });

  it('refuses a header value HTTP cannot carry without taking a socket: later requests still go', async () => {
    const transport = createHttpTransport(`http://127.0.0.1:${port}`, LOCAL_DEV, { maxSockets: 1 });
    const refused = [];
    for (const value of ['a\r\nx-injected: 1', 'a\u20acb']) {
      refused.push(await refusal(transport.send({ ...REQUEST, headers: { 'x-request-id': value } })));
    }
    const answered = await transport.send(REQUEST).then(
      (response) => response.status,
      (error: unknown) => String(error),
    );
    transport.close();
    assert.equal(answered, 200);
    assert.deepEqual(
      refused.map((error) => [error.kind, error.message]),
      [
        ['invalid_request', 'the x-request-id header holds a character HTTP cannot carry'],
        ['invalid_request', 'the x-request-id header holds a character HTTP cannot carry'],
      ],
    );
    assert.equal(received, 1);
  });

  it('answers a read whose token cannot be sent 503 (reason source.invalid_request), without retrying it', async () => {
    const config: SourceConnectionConfig = {
      base_url: `http://127.0.0.1:${port}/`,
      token_env: 'T',
      ...LOCAL_DEV,
      max_in_flight: 1,
      timeout: 2000,
      retry: { max_attempts: 3, base_delay: 100, max_delay: 1000, max_retry_after: 5000 },
      bulk_mode: 'none',
      bulk_max_values: 100,
      coalesce_reads: false,
    };
    const sleeps: number[] = [];
    const token = 'relay-secret\nsecond-line';
    const reader = createRelayConnector({ relay: config }, new Map([['relay', token]]), {
      clock: systemClock,
      random: systemRandom,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem)],
      [503, 'source.unavailable', 'source.invalid_request'],
    );
    assert.deepEqual(sleeps, []);
    assert.equal(received, 0);
    assert.ok(!JSON.stringify(problem).includes('second-line'));
    assert.ok(!String((problem.cause as Error).message).includes('second-line'));
  });
});
