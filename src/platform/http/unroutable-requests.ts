// Requests Node would answer on its own, with a bare status line and no body: an HTTP/1.1 request without Host,
// an `Expect` other than 100-continue, a CONNECT; and those Node lets through, with several Host lines, with header
// lines past the ones it reads or with a transfer coding it does not decode. They get problems like every other
// refusal; as requests the parser refuses (answer-client-error.ts), they reach no route and are not audited.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';
import { problemHead, rawProblemResponse } from './answer-client-error.ts';
import { continueWhenBodyRead } from './expect-continue.ts';

/**
 * Header lines a request may have. Node keeps the first 2,000 and silently drops the rest, so a second Host or
 * Authorization line, or the X-Forwarded-For line a proxy appends, would go unseen past them: Node reads one more
 * here, and a request that has it is refused (`refuseBadHost`).
 */
const MAX_HEADER_LINES = 2000;

/** Node's own answers off; ours installed. Call before the server listens, with its `requireHostHeader: false`. */
export function answerUnroutableRequests(server: Server, newRequestId: () => string): void {
  server.maxHeadersCount = MAX_HEADER_LINES + 1;
  continueWhenBodyRead(server);
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
 * RFC 9112 §3.2: an HTTP/1.1 request without Host, and any request with more than one Host field line, is refused
 * (Node keeps the first of several, which a proxy in front may have read otherwise); so is one with more header lines
 * than are read, one whose body has a transfer coding besides `chunked`, which Node does not decode, and an HTTP/1.0
 * one with any. True when it answered; for the dispatcher to call first, since Node does none of this.
 */
export function refuseBadHost(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: () => string,
): boolean {
  if (request.rawHeaders.length > 2 * MAX_HEADER_LINES) {
    answer(
      response,
      platformProblem(
        'http.headers_too_large',
        `The request has more than ${MAX_HEADER_LINES} header lines.`,
      ),
      requestId(),
    );
    return true;
  }
  let detail: string | undefined;
  const codings = request.headers['transfer-encoding'];
  if (codings !== undefined && !/^[ \t]*chunked[ \t]*$/i.test(codings)) {
    // Node decodes `chunked` only and hands on whatever other coding it ends with still coded (RFC 9112 §6.1).
    detail = 'No Transfer-Encoding but `chunked` is accepted: send the body uncompressed.';
  } else if (codings !== undefined && request.httpVersion !== '1.1') {
    // HTTP/1.0 has no chunked framing: a proxy in front may have read the body otherwise (RFC 9112 §6.1).
    detail = 'An HTTP/1.0 request cannot use Transfer-Encoding.';
  } else if (request.headers.host === undefined) {
    if (request.httpVersion === '1.1') detail = 'An HTTP/1.1 request must carry a Host header.';
  } else if (hostLines(request.rawHeaders) > 1) {
    detail = 'Send one Host header.';
  }
  if (detail === undefined) return false;
  answer(response, platformProblem('http.malformed_request', detail), requestId());
  return true;
}

function hostLines(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

function answer(response: ServerResponse, problem: Problem, requestId: string): void {
  const { status, headers, body } = problemHead(problem, requestId);
  response.shouldKeepAlive = false;
  response.writeHead(status, Object.fromEntries(headers));
  response.end(body);
}
