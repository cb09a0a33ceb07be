// Shared HTTP assertions for relay and platform tests: problem bodies, security headers, raw socket requests, and
// a bare platform app.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/platform/clock.ts';
import { createHttpServerApp, type HttpServerOptions } from '../../src/platform/http/create-server.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { problemTypeUri } from '../../src/platform/problem/problem.ts';
import { systemRandom } from '../../src/platform/random.ts';

export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** What a test needs of a response, whether it came from inject or from a real socket. */
export interface HttpResult {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders | Record<string, string | string[] | number | undefined>;
  readonly body: string;
}

/** Checks an RFC 9457 body: exact media type, the six members, and `request_id` equal to `x-request-id`. */
export function assertProblem(response: HttpResult, status: number, code: string): Record<string, unknown> {
  assert.equal(response.statusCode, status, response.body);
  assert.equal(response.headers['content-type'], 'application/problem+json');
  const body = JSON.parse(response.body) as Record<string, unknown>;
  for (const member of ['type', 'title', 'status', 'detail', 'code', 'request_id']) {
    assert.ok(Object.hasOwn(body, member), `problem body lacks ${member}: ${response.body}`);
  }
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.type, problemTypeUri(code));
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  assertRequestId(response);
  assert.equal(body.request_id, response.headers['x-request-id']);
  return body;
}

/** The response carries our own request id: a ULID. Returns it. */
export function assertRequestId(response: HttpResult): string {
  const id = response.headers['x-request-id'];
  assert.equal(typeof id, 'string', 'x-request-id missing');
  assert.match(id as string, ULID_PATTERN);
  return id as string;
}

/** The headers of relay contract §2.13 that every response carries. */
export function assertSecurityHeaders(response: HttpResult): void {
  const { headers } = response;
  assert.equal(headers['x-content-type-options'], 'nosniff');
  assert.equal(headers['x-frame-options'], 'DENY');
  assert.equal(headers['referrer-policy'], 'no-referrer');
  const csp = String(headers['content-security-policy'] ?? '');
  assert.match(csp, /(^|;)\s*default-src\s/);
  assert.match(csp, /(^|;)\s*frame-ancestors 'none'/);
  assertRequestId(response);
}

export interface RawRequestOptions {
  readonly method?: string;
  /** A list sends the header once per value. */
  readonly headers?: Record<string, string | string[]>;
  readonly body?: string;
}

/** One request over a real TCP connection to a listening app (inject skips Node's HTTP parser). */
export function rawRequest(port: number, path: string, options: RawRequestOptions = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            statusCode: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Listens on an ephemeral loopback port and returns it. */
/**
 * Sends bytes as they are (Node's client refuses malformed ones) and reads the one answer up to the close; with
 * `guardMs`, a connection the server keeps open that long fails instead.
 */
export function sendRaw(port: number, bytes: string, guardMs?: number): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
    if (guardMs !== undefined) {
      socket.setTimeout(guardMs, () => socket.destroy(new Error(`no answer within ${guardMs} ms`)));
    }
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ statusCode: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

export async function listenLocal(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/** The platform's HTTP app with no routes of its own: every platform behaviour, nothing of either service. */
export function bareApp(requestTimeoutMs = 5_000, options: Partial<HttpServerOptions> = {}): FastifyInstance {
  return createHttpServerApp({
    logger: silentLogger(),
    clock: systemClock,
    random: systemRandom,
    requestTimeoutMs,
    corsAllowedOrigins: [],
    trustProxy: false,
    ...options,
  });
}
