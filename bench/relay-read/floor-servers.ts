// Measures the floor each layer adds: bare node:http, plain fastify, and our platform server, one tiny route each.
// Usage: node bin/run-ts.js bench/relay-read/floor-servers.ts <bare|fastify|platform> <port>
import { createServer } from 'node:http';
import Fastify from 'fastify';
import { systemClock } from '../../src/platform/clock.ts';
import { createHttpServerApp } from '../../src/platform/http/create-server.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';

const [kind, portText] = process.argv.slice(2);
const port = Number(portText);
const body = JSON.stringify({ status: 'ok' });
if (kind === 'bare') {
  createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(body);
  }).listen(port, '127.0.0.1');
} else {
  const app =
    kind === 'fastify'
      ? Fastify({ logger: false })
      : createHttpServerApp({
          logger: silentLogger(),
          clock: systemClock,
          random: systemRandom,
          requestTimeoutMs: 30_000,
          corsAllowedOrigins: [],
          trustProxy: false,
        });
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.listen({ host: '127.0.0.1', port });
}
console.log('ready');
