// Bench baseline: bare node:http answering each scenario URL with a pre-computed body (or a 304 on a matching ETag).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * One canned 200 response per request URL (path and query), copied from the relay's answer to that URL.
 * A request whose If-None-Match equals the ETag gets a bodiless 304, the cheapest possible revalidation.
 */
export interface BareRoute {
  readonly url: string;
  readonly contentType: string;
  readonly etag: string;
  /** Base64 so any byte content survives the JSON hand-over. */
  readonly bodyBase64: string;
}

const [routesPath, bind] = process.argv.slice(2);
if (routesPath === undefined || bind === undefined) {
  console.error('usage: bare-server.ts <routes.json> <host:port>');
  process.exit(2);
}

interface Canned {
  readonly etag: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const routes = new Map<string, Canned>();
for (const route of JSON.parse(readFileSync(routesPath, 'utf8')) as BareRoute[]) {
  const body = Buffer.from(route.bodyBase64, 'base64');
  const headers = {
    'content-type': route.contentType,
    'content-length': String(body.length),
    etag: route.etag,
  };
  routes.set(route.url, { etag: route.etag, headers, body });
}

const server = createServer((request, response) => {
  const route = routes.get(request.url ?? '');
  if (route === undefined) {
    response.writeHead(404).end();
  } else if (request.headers['if-none-match'] === route.etag) {
    response.writeHead(304, { etag: route.etag }).end();
  } else {
    response.writeHead(200, route.headers).end(route.body);
  }
});

const colon = bind.lastIndexOf(':');
const host = bind.slice(0, colon);
const port = Number(bind.slice(colon + 1));
server.listen(port, host, () => {
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  process.stdout.write(
    `${JSON.stringify({ event: 'ready', pid: process.pid, url: `http://${host}:${actualPort}` })}\n`,
  );
});

const stop = (): void => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
