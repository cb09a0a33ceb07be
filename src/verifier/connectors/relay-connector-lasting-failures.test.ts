// Transport failures a retry cannot mend (a certificate refused, a host name that does not exist) answer 503 at once;
// one that may pass (a resolver that cannot answer for now) is retried.
import assert from 'node:assert/strict';
import { lookup as dnsLookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { systemRandom } from '../../platform/random.ts';
import type { SourceConnectionConfig } from '../config/schema.ts';
import { createHttpTransport, failureKindOf, type ResolveAll } from './create-http-transport.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import { auditCodeOf } from './failure-reason.ts';
import { connection, failure, LOOKUP } from './relay-connector-fixture.ts';

const TLS_FIXTURES = new URL('../../../test/fixtures/tls/', import.meta.url);

/** A connector over `config`, its transport resolving names with `resolve` (the system's resolver if none). */
function readerFor(config: SourceConnectionConfig, sleeps: number[], resolve?: ResolveAll) {
  return createRelayConnector({ relay: config }, new Map([['relay', 'relay-secret']]), {
    clock: systemClock,
    random: systemRandom,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    transportFor: (config) => createHttpTransport(config.base_url, config, { maxSockets: 1, resolve }),
  });
}

/** A resolver failing every lookup with `code`, as `dns.lookup` does, counting the lookups. */
function failingWith(code: string) {
  const resolver = {
    lookups: 0,
    resolve: ((hostname, _options, callback) => {
      resolver.lookups++;
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ${code} ${hostname}`);
      error.code = code;
      error.syscall = 'getaddrinfo';
      setImmediate(() => callback(error, []));
    }) as ResolveAll,
  };
  return resolver;
}

describe('relay connector: a source whose certificate is refused', () => {
  let server: Server;
  let port: number;
  let connections: number;
  let answered: number;

  before(async () => {
    server = createServer(
      {
        key: readFileSync(new URL('test-server-key.pem', TLS_FIXTURES)),
        cert: readFileSync(new URL('test-server-cert.pem', TLS_FIXTURES)),
      },
      (_request, response) => {
        answered++;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"data":[{}]}');
      },
    );
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    connections = 0;
    answered = 0;
  });

  it('answers 503 source.unavailable after one connection (reason source.certificate_refused)', async () => {
    const sleeps: number[] = [];
    const reader = readerFor(connection(port, { base_url: `https://127.0.0.1:${port}/relay/` }), sleeps);
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem)],
      [503, 'source.unavailable', 'source.certificate_refused'],
    );
    assert.deepEqual([connections, answered, sleeps.length], [1, 0, 0]);
  });
});

describe('relay connector: a source host name that does not resolve', () => {
  // Nothing listens there: a name that resolved would be refused, and retried, as a network failure.
  const config = connection(9, { base_url: 'http://relay.invalid:9/relay/' });

  it('answers 503 source.unavailable after one lookup when the name does not exist (ENOTFOUND)', async () => {
    const sleeps: number[] = [];
    const resolver = failingWith('ENOTFOUND');
    const reader = readerFor(config, sleeps, resolver.resolve);
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem)],
      [503, 'source.unavailable', 'source.host_not_found'],
    );
    assert.deepEqual([resolver.lookups, sleeps.length], [1, 0]);
  });

  it('retries a resolver that cannot answer for now (EAI_AGAIN) up to max_attempts', async () => {
    const sleeps: number[] = [];
    const resolver = failingWith('EAI_AGAIN');
    const reader = readerFor(config, sleeps, resolver.resolve);
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem)],
      [503, 'source.unavailable', 'source.network'],
    );
    assert.deepEqual([resolver.lookups, sleeps.length], [3, 2]);
  });

  it('reads the system resolver the same way for a .invalid name (RFC 6761: it never resolves)', async () => {
    // A machine without any resolver may answer EAI_AGAIN rather than ENOTFOUND: each is held to its own rule.
    const codes: (string | undefined)[] = [];
    const counting: ResolveAll = (hostname, options, callback) =>
      dnsLookup(hostname, options, (error, addresses) => {
        codes.push(error?.code);
        callback(error, addresses);
      });
    const sleeps: number[] = [];
    const reader = readerFor(config, sleeps, counting);
    const problem = await failure(reader.read(LOOKUP));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    if (codes[0] === 'ENOTFOUND') {
      assert.deepEqual([codes.length, auditCodeOf(problem)], [1, 'source.host_not_found']);
    } else {
      assert.deepEqual([codes.length, auditCodeOf(problem)], [3, 'source.network'], String(codes));
    }
  });
});

describe('transport failure kinds', () => {
  it('tells a refused certificate, a port without TLS and a name that does not exist from failures that may pass', () => {
    const kinds = Object.fromEntries(
      [
        'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
        'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
        'CERT_HAS_EXPIRED',
        'CERT_NOT_YET_VALID',
        'ERR_TLS_CERT_ALTNAME_INVALID',
        'DEPTH_ZERO_SELF_SIGNED_CERT',
        'SELF_SIGNED_CERT_IN_CHAIN',
        'ERR_SSL_WRONG_VERSION_NUMBER',
        'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
        'ENOTFOUND',
        'EAI_AGAIN',
        'ECONNREFUSED',
        'ECONNRESET',
        undefined,
      ].map((code) => [String(code), failureKindOf(code)]),
    );
    assert.deepEqual(kinds, {
      UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate_refused',
      UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate_refused',
      CERT_HAS_EXPIRED: 'certificate_refused',
      CERT_NOT_YET_VALID: 'certificate_refused',
      ERR_TLS_CERT_ALTNAME_INVALID: 'certificate_refused',
      DEPTH_ZERO_SELF_SIGNED_CERT: 'certificate_refused',
      SELF_SIGNED_CERT_IN_CHAIN: 'certificate_refused',
      ERR_SSL_WRONG_VERSION_NUMBER: 'protocol_error',
      ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'protocol_error',
      ENOTFOUND: 'host_not_found',
      EAI_AGAIN: 'network',
      ECONNREFUSED: 'network',
      ECONNRESET: 'network',
      undefined: 'network',
    });
  });
});
