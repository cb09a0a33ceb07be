// Requests Node would answer on its own, with a bare status line and no body: an HTTP/1.1 request without Host,
// an `Expect` other than 100-continue, a CONNECT. They get problems like every other refusal; as requests the
// parser refuses (answer-client-error.ts), they reach no route and are not audited.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';
import { problemHead, rawProblemResponse } from './answer-client-error.ts';

/** Node's own answers off; ours installed. Call before the server listens, with its `requireHostHeader: false`. */
export function answerUnroutableRequests(server: Server, newRequestId: () => string): void {
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    answer(response, platformProblem('http.expectation_failed'), newRequestId());
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    // No route serves CONNECT: answered as any unknown route, then the tunnel Node handed over is closed.
    socket.on('error', () => {});
    // Cut once written: a client holding its side open would otherwise keep the connection.
    socket.end(rawProblemResponse(platformProblem('http.not_found'), newRequestId()), () => socket.destroy());
  });
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host is refused. True when it answered; for the dispatcher to call
 * first, since Node no longer does.
 */
export function refuseHostless(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: () => string,
): boolean {
  if (request.headers.host !== undefined || request.httpVersion !== '1.1') return false;
  answer(
    response,
    platformProblem('http.malformed_request', 'An HTTP/1.1 request must carry a Host header.'),
    requestId(),
  );
  return true;
}

function answer(response: ServerResponse, problem: Problem, requestId: string): void {
  const { status, headers, body } = problemHead(problem, requestId);
  response.shouldKeepAlive = false;
  response.writeHead(status, Object.fromEntries(headers));
  response.end(body);
}
