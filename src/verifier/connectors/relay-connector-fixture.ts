// Shared by the registry_data_api connector tests: a node:http server standing in for a relay (its handler set by
// each test), the connection and binding they read through, and helpers for what a read fails with.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { isProblem, type Problem } from '../../platform/problem/problem.ts';
import { systemRandom } from '../../platform/random.ts';
import type { SourceBindingConfig, SourceConnectionConfig } from '../config/schema.ts';
import { createRelayConnector, type RelayConnectorDeps } from './create-relay-connector.ts';
import type { SourceLookup } from './source-reader.ts';

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

export const BINDING: SourceBindingConfig = {
  connector: 'registry_data_api',
  connection: 'relay',
  dataset: 'civil registry',
  entity: 'persons',
  lookup: { input: 'target.identifiers.national_id', field: 'national_id' },
  fields: ['deceased', 'birth_date'],
};

export function connection(
  port: number,
  overrides: Partial<SourceConnectionConfig> = {},
): SourceConnectionConfig {
  return {
    base_url: `http://127.0.0.1:${port}/relay/`,
    token_env: 'T',
    allow_insecure_localhost: true,
    allow_insecure_private_network: false,
    allow_link_local: false,
    max_in_flight: 8,
    timeout: 2000,
    retry: { max_attempts: 3, base_delay: 100, max_delay: 1000, max_retry_after: 5000 },
    bulk_mode: 'none',
    bulk_max_values: 100,
    coalesce_reads: false,
    ...overrides,
  };
}

export const LOOKUP: SourceLookup = {
  binding: BINDING,
  value: 'FAKE-1',
  purpose: 'https://p.example/x',
  requestId: 'corr-1',
};

/** A read trace that counts what it is told. */
export const counter = () => ({
  sent: 0,
  readSent() {
    this.sent++;
  },
});

export async function failure(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isProblem(error), String(error));
    return error;
  }
  assert.fail('expected a problem');
}

/** The stand-in relay of one test file: what it was asked, the waits the connector took, and a connector to it. */
export interface ConnectorUpstream {
  /** Answers the next requests; each test sets its own. */
  handler: Handler;
  readonly requests: IncomingMessage[];
  readonly sleeps: number[];
  readonly port: number;
  /** The listening server, for tests that watch its connections. */
  readonly server: Server;
  connector(
    overrides?: Partial<SourceConnectionConfig>,
    deps?: Partial<RelayConnectorDeps>,
  ): ReturnType<typeof createRelayConnector>;
}

/** Starts the stand-in relay before the file's tests and stops it after; requests and waits reset per test. */
export function useConnectorUpstream(): ConnectorUpstream {
  let server: Server;
  const upstream: ConnectorUpstream = {
    handler: (_request, response) => response.end(),
    requests: [],
    sleeps: [],
    port: 0,
    get server() {
      return server;
    },
    connector: (overrides = {}, deps = {}) =>
      createRelayConnector(
        { relay: connection(upstream.port, overrides) },
        new Map([['relay', 'relay-secret']]),
        {
          clock: systemClock,
          random: systemRandom,
          sleep: async (ms) => {
            upstream.sleeps.push(ms);
          },
          ...deps,
        },
      ),
  };
  before(async () => {
    server = createServer((request, response) => {
      upstream.requests.push(request);
      upstream.handler(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    (upstream as { port: number }).port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.sleeps.length = 0;
  });
  return upstream;
}
