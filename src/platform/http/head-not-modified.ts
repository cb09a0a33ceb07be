// Fastify's HEAD routes write `Content-Length: 0` on every answer without a payload, a 304 included. RFC 9110 §8.6
// allows a length on a 304 only if it is the 200's, and a cache freshening its stored answer with the 304's headers
// could take the 0 for the body's. Fastify's own HEAD step runs after every hook, so the length is dropped where the
// head is written. (The fast lane never serves HEAD.)
import type { ServerResponse } from 'node:http';

export function dropNotModifiedLength(response: ServerResponse): void {
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (status === 304) {
      this.removeHeader('content-length');
      for (const headers of rest) {
        if (typeof headers === 'object' && headers !== null && !Array.isArray(headers))
          delete (headers as Record<string, unknown>)['content-length'];
      }
    }
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}
