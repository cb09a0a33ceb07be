// Graceful close for a node:http server. Node's own `server.close()` (Node >= 19) destroys every connection whose
// response has called `end()`, even while part of that response still waits in the write buffer for a slow client:
// the client got a 200 with its Content-Length, then an early EOF. Here a close stops accepting connections,
// closes the connections that are truly idle at once, lets every response in flight be written out and closes its
// connection after it, and destroys whatever is still open at the deadline.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The responses of one connection not yet closed, in the order their requests arrived. */
export type InFlightResponses = (socket: Socket) => ReadonlySet<ServerResponse>;

const NONE: ReadonlySet<ServerResponse> = new Set();

/**
 * Makes `server.close()` drain as described above; `deadlineMs` bounds the drain. Requests read while draining are
 * still served (the caller decides how) and answered with `Connection: close`. Returns what it tracks per connection.
 */
export function drainOnClose(server: Server, deadlineMs: number): InFlightResponses {
  // Every open connection with its responses not yet closed (written out, or cut by the connection closing).
  const open = new Map<Socket, Set<ServerResponse>>();
  let draining = false;

  server.on('connection', (socket: Socket) => {
    open.set(socket, new Set());
    socket.once('close', () => open.delete(socket));
  });

  // Ahead of the app's own listener, so that a response can still be told to close its connection.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const responses = open.get(socket);
    if (responses === undefined) return;
    responses.add(response);
    if (draining) response.shouldKeepAlive = false;
    response.once('close', () => {
      responses.delete(response);
      // Its bytes are all with the kernel: a FIN after them. The connection closes when the client closes its
      // side, or at the keep-alive timeout; a destroy now would reset it, discarding them, had the client sent
      // anything more.
      if (draining && responses.size === 0 && !socket.destroyed && !socket.writableEnded) socket.end();
    });
  });

  // Node's `close()` calls this first: only connections with nothing in flight and nothing left to write go now.
  server.closeIdleConnections = () => {
    for (const [socket, responses] of open) if (responses.size === 0) closeIdle(socket);
  };

  const nodeClose = server.close;
  server.close = function close(this: Server, callback?: (error?: Error) => void) {
    if (!draining) startDraining();
    return nodeClose.call(this, callback);
  };

  const startDraining = (): void => {
    // Responses in flight keep their keep-alive: a `Connection: close` on one would drop the answers to requests
    // pipelined after it. Their connection is ended once the last of them is written.
    draining = true;
    const deadline = setTimeout(() => {
      for (const socket of open.keys()) socket.destroy();
    }, deadlineMs);
    deadline.unref();
    server.once('close', () => clearTimeout(deadline));
  };
  return (socket) => open.get(socket) ?? NONE;
}

/** Closes a connection with no response in flight: at once, unless bytes written outside a response still wait. */
function closeIdle(socket: Socket): void {
  if (socket.writableLength === 0) socket.destroy();
  else if (!socket.writableEnded) socket.end();
}
