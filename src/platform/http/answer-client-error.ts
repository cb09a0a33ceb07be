// Requests Node's HTTP parser refuses (a control character in a header, a malformed request line or chunk, headers
// past the size limit, headers that never finish arriving) reach no route and no hook. Without this they got
// Fastify's bare `{"error":"Bad Request",...}`: no code, no request id. They are answered as every other error.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Problem } from '../problem/problem.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import { PROBLEM_MEDIA_TYPE, renderProblemJson } from '../problem/render-problem-json.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

function problemFor(code: unknown): Problem {
  if (code === 'HPE_HEADER_OVERFLOW') return platformProblem('http.headers_too_large');
  // Normalised as the relay contract normalises a raw 408.
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return platformProblem('internal.timeout');
  return platformProblem('http.malformed_request');
}

export function answerClientError(
  error: Error & { code?: unknown },
  socket: Duplex,
  requestId: string,
): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const problem = problemFor(error.code);
    const body = JSON.stringify(renderProblemJson(problem, requestId));
    const headers: [string, string | number][] = [
      ['content-type', PROBLEM_MEDIA_TYPE],
      ['content-length', Buffer.byteLength(body)],
      ...Object.entries(SECURITY_HEADERS),
      ['x-request-id', requestId],
      ['connection', 'close'],
    ];
    const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(`HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n${head}\r\n${body}`);
  }
  socket.destroy(error);
}
