// Process-wide settings that would reroute a source connection or weaken its TLS do not reach it: the bearer token
// goes to the base URL's origin, over a verified certificate, whatever the environment says.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { type AddressInfo, isIP } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { AddressPolicy } from './classify-address.ts';
import { createHttpTransport, type ResolveAll, TransportError } from './create-http-transport.ts';

const TLS_FIXTURES = new URL('../../../test/fixtures/tls/', import.meta.url);
const POLICY: AddressPolicy = {
  allow_insecure_localhost: true,
  allow_insecure_private_network: false,
  allow_link_local: false,
};
const REQUEST = { path: '/v1/x', headers: { authorization: 'Bearer relay-secret' }, timeoutMs: 2000 };
const toLoopback: ResolveAll = (_hostname, _options, callback) =>
  setImmediate(() => callback(null, [{ address: '127.0.0.1', family: isIP('127.0.0.1') }]));

const answerRecords = (response: ServerResponse) => response.end('{"data":[]}');

const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NO_PROXY', 'no_proxy'];

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('http transport: the process environment', () => {
  const seen: { server: string; authorization: string | undefined }[] = [];
  const record = (server: string) => (request: IncomingMessage) =>
    seen.push({ server, authorization: request.headers.authorization });
  const saved = new Map<string, string | undefined>();
  /** How the plain http relay answers; each test may set its own. */
  let answer = answerRecords;
  let proxy: Server;
  let relay: Server;
  let tlsRelay: Server;
  let proxyPort: number;
  let relayPort: number;
  let tlsPort: number;

  before(async () => {
    proxy = createServer((request, response) => {
      record('proxy')(request);
      response.end('{"data":[]}');
    });
    proxy.on('connect', (request, socket) => {
      record('proxy')(request);
      socket.destroy();
    });
    relay = createServer((request, response) => {
      record('relay')(request);
      answer(response);
    });
    tlsRelay = createTlsServer(
      {
        key: readFileSync(new URL('test-server-key.pem', TLS_FIXTURES)),
        cert: readFileSync(new URL('test-server-cert.pem', TLS_FIXTURES)),
      },
      (request, response) => {
        record('tls relay')(request);
        response.end('{"data":[]}');
      },
    );
    [proxyPort, relayPort, tlsPort] = await Promise.all([listen(proxy), listen(relay), listen(tlsRelay)]);
    for (const name of [...PROXY_VARIABLES, 'NODE_TLS_REJECT_UNAUTHORIZED'])
      saved.set(name, process.env[name]);
  });
  afterEach(() => {
    seen.length = 0;
    answer = answerRecords;
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  after(async () => {
    await Promise.all(
      [proxy, relay, tlsRelay].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  });

  it('connects straight to the source, never through a proxy named in the environment', async () => {
    for (const name of PROXY_VARIABLES) process.env[name] = `http://127.0.0.1:${proxyPort}`;
    process.env.NO_PROXY = process.env.no_proxy = 'unrelated.example';
    const byName = createHttpTransport(`http://relay.test:${relayPort}`, POLICY, {
      maxSockets: 1,
      resolve: toLoopback,
    });
    const byAddress = createHttpTransport(`http://127.0.0.1:${relayPort}`, POLICY, { maxSockets: 1 });
    const statuses = [(await byName.send(REQUEST)).status, (await byAddress.send(REQUEST)).status];
    byName.close();
    byAddress.close();
    assert.deepEqual(statuses, [200, 200]);
    assert.deepEqual(seen, [
      { server: 'relay', authorization: 'Bearer relay-secret' },
      { server: 'relay', authorization: 'Bearer relay-secret' },
    ]);
  });

  it('hands a redirect back unfollowed: the host it names never sees the token', async () => {
    const transport = createHttpTransport(`http://127.0.0.1:${relayPort}`, POLICY, { maxSockets: 1 });
    let status = 0;
    answer = (response) =>
      response.writeHead(status, { location: `http://127.0.0.1:${proxyPort}/v1/x` }).end();
    const answers = [];
    for (status of [301, 302, 303, 307, 308]) answers.push((await transport.send(REQUEST)).status);
    transport.close();
    assert.deepEqual(answers, [301, 302, 303, 307, 308]);
    assert.deepEqual(
      seen.map((request) => request.server),
      ['relay', 'relay', 'relay', 'relay', 'relay'],
    );
  });

  it('refuses an unverified certificate even with NODE_TLS_REJECT_UNAUTHORIZED=0: the token is not sent', async () => {
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const transport = createHttpTransport(`https://127.0.0.1:${tlsPort}`, POLICY, { maxSockets: 1 });
    const outcome = await transport.send(REQUEST).then(
      (response) => `answered ${response.status}`,
      (error: unknown) => (error instanceof TransportError ? error.kind : String(error)),
    );
    transport.close();
    assert.equal(outcome, 'certificate_refused');
    assert.deepEqual(seen, []);
  });
});
