// `Expect: 100-continue` (RFC 9110 §10.1.1) asks whether the body is wanted before it is sent. Node answers 100 as
// soon as the headers are read, before any route has looked at the request, so a client uploads in full a body the
// answer refuses unread: a declared length over the limit (413), an unknown path, a refusal before routing. Here the
// 100 goes out when something first reads the body; a request answered without reading it gets its final answer
// instead, and Node closes its connection (the body was never sent, so nothing on it can be framed).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Call before the server listens; the request then reaches the server's `request` listeners as any other. */
export function continueWhenBodyRead(server: Server): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (hasBody(request)) {
      // Body readers (Fastify's parser, the fast lane's, the body bound) take it with `data` listeners, which resume
      // the stream. Node resumes it too to discard an unread body after the answer: then no 100 is due.
      request.once('resume', () => {
        if (!response.headersSent && !response.writableEnded) response.writeContinue();
      });
    } else {
      // Nothing to wait for: Node's own answer, which keeps the connection open.
      response.writeContinue();
    }
    server.emit('request', request, response);
  });
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
