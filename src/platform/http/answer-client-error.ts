// Requests Node's HTTP parser refuses (a control character in a header, a malformed request line or chunk, headers
// past the size limit, headers that never finish arriving) reach no route and no hook. Without this they got
// Fastify's bare `{"error":"Bad Request",...}`: no code, no request id. They are answered as every other error.
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';
import { PROBLEM_MEDIA_TYPE, renderProblemJson } from '../problem/render-problem-json.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

/** How long a connection may take to take in its problem before it is cut. */
const FLUSH_GRACE_MS = 5_000;

/** Connections whose problem is written or waiting to be: bytes after the bad ones fail the parser again. */
const answering = new WeakSet<Duplex>();

function problemFor(code: unknown): Problem {
  if (code === 'HPE_HEADER_OVERFLOW') return platformProblem('http.headers_too_large');
  // Normalised as the relay contract normalises a raw 408.
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return platformProblem('internal.timeout');
  return platformProblem('http.malformed_request');
}

/**
 * Answers a request the parser refused, then closes its connection. Requests pipelined ahead of it on the same
 * connection (`inFlight`) are answered first: cutting the connection at once would lose answers already due.
 */
export function answerClientError(
  error: Error & { code?: unknown },
  socket: Duplex,
  requestId: string,
  inFlight: ReadonlySet<ServerResponse>,
): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (answering.has(socket)) return;
  answering.add(socket);
  // Bytes that fail while a request's body is still being read belong to that request: it can never complete, and
  // its answer is not waited for (the connection cut ends its handler's wait for the body). The requests before it
  // are: written first, the problem would be read as the answer to the first of them. A request already answered
  // from its headers (a transfer coding refused, a credential checked before the body) keeps that answer: a second
  // one would be read as the answer to the client's next request.
  const answered = [...inFlight].some((response) => !response.req.complete && response.headersSent);
  const ahead = [...inFlight].filter((response) => answered || response.req.complete);
  const finish = () => writeProblem(error, socket, answered ? undefined : requestId);
  if (ahead.length === 0) {
    finish();
    return;
  }
  let waiting = ahead.length;
  for (const response of ahead) {
    response.once('close', () => {
      if (--waiting === 0) finish();
    });
  }
}

/** Writes the problem (none when `requestId` is undefined: the request has its answer), then closes. */
function writeProblem(error: Error, socket: Duplex, requestId: string | undefined): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy(error);
    return;
  }
  if (requestId !== undefined) {
    socket.write(rawProblemResponse(problemFor((error as { code?: unknown }).code), requestId));
  }
  if (socket.writableLength === 0) {
    socket.destroy(error);
    return;
  }
  // Earlier answers (or this one) still wait for a slow reader: a destroy now would discard them.
  const cut = setTimeout(() => socket.destroy(error), FLUSH_GRACE_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
  socket.end(() => socket.destroy());
}

/** A problem answer outside every route: its status, headers (the connection closes after it) and body. */
export function problemHead(
  problem: Problem,
  requestId: string,
): { status: number; headers: [string, string | number][]; body: string } {
  const body = JSON.stringify(renderProblemJson(problem, requestId));
  const headers: [string, string | number][] = [
    ['content-type', PROBLEM_MEDIA_TYPE],
    ['content-length', Buffer.byteLength(body)],
    // About a request no route saw: nothing any cache should keep, on either listener.
    ['cache-control', 'no-store'],
    ...Object.entries(SECURITY_HEADERS),
    ['x-request-id', requestId],
    ['connection', 'close'],
  ];
  return { status: problem.status, headers, body };
}

/** The same, as the bytes of an HTTP/1.1 response, for a socket no response object is attached to. */
export function rawProblemResponse(problem: Problem, requestId: string): string {
  const { status, headers, body } = problemHead(problem, requestId);
  const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`;
}
