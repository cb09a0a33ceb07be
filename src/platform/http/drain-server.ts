// Graceful close for a node:http server. Node's own `server.close()` (Node >= 19) destroys every connection whose
// response has called `end()`, even while part of that response still waits in the write buffer for a slow client:
// the client got a 200 with its Content-Length, then an early EOF. Here a close stops accepting connections,
// ends the connections that are idle at once, lets every response in flight be written out and ends its connection
// after it, and destroys whatever is still open at the deadline. Ending is graceful (end-connection.ts): a client
// still reading gets every byte, even if it pipelined another request meanwhile.
// Outside a close too, a response that closes its connection (a 413 or 504 answered while the body still arrives)
// ends it gracefully: node:http would destroy the socket once its FIN is out, and the body bytes still coming then
// draw a reset, under which the client's next write fails and takes the answer it has not read yet with it.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.ts';
import { endConnection } from './end-connection.ts';

/**
 * How long a close waits for the responses in flight: a request gets up to the request timeout to be answered (its
 * 504 at the latest), and its answer as long again to reach a slow client. Then what remains is cut.
 */
export function drainDeadlineMs(requestTimeoutMs: number): number {
  return 2 * requestTimeoutMs;
}

/** The `onDeadline` of a service's listener: a cut at the drain's limit is said, since its clients got no answer. */
export function warnDrainCut(logger: Logger, deadlineMs: number): (connections: number) => void {
  return (connections) =>
    logger.warn(
      { connections, drain_limit_ms: deadlineMs },
      'drain limit reached: connections still open were cut (a response still being written, or a request still running)',
    );
}

/** The responses of one connection not yet closed, in the order their requests arrived. */
export interface InFlightResponses {
  (socket: Socket): ReadonlySet<ServerResponse>;
  /** Connections something is kept for: the open ones, never one that has closed. */
  readonly connections: number;
}

const NONE: ReadonlySet<ServerResponse> = new Set();

interface Connection {
  readonly responses: Set<ServerResponse>;
  quietAt: number;
}

/**
 * How long a connection ended outside a close may stay open, once its last byte is with the kernel, for its client
 * to read the answer and close: a client that goes on sending is cut then (a close bounds it by its deadline).
 */
const LINGER_MS = 5_000;

/**
 * Makes `server.close()` drain as described above; `deadlineMs` bounds the drain. Requests read while draining are
 * still served (the caller decides how) and answered with `Connection: close`; those sent on a connection once it
 * is ending are not read. `onCut` is told of each response its connection closed before it was written: the client
 * has gone. `onDeadline` is told how many connections the deadline cut, when it cut any. Returns what it tracks per
 * connection.
 */
export function drainOnClose(
  server: Server,
  deadlineMs: number,
  onCut: (response: ServerResponse) => void = () => {},
  onDeadline: (connections: number) => void = () => {},
): InFlightResponses {
  // Every open connection with its responses not yet closed (written out, or cut by the connection closing), and
  // how many bytes it had received when it last had nothing in flight: more since then are a request still arriving
  // (a slow client's headers), which is read and answered rather than dropped unanswered. One entry per connection,
  // removed when it closes: a response closing after its connection (a client gone mid-request) updates the entry
  // it captured, never the map, so a closed connection is not kept.
  const open = new Map<Socket, Connection>();
  let draining = false;

  server.on('connection', (socket: Socket) => {
    open.set(socket, { responses: new Set(), quietAt: 0 });
    socket.once('close', () => {
      const connection = open.get(socket);
      open.delete(socket);
      // Node tells only the response being written that its connection closed, not those pipelined behind it.
      for (const response of connection?.responses ?? []) onCut(response);
    });
    // node:http calls `destroySoon()` after a response that closes its connection.
    socket.destroySoon = () => {
      endConnection(socket);
      if (!draining) cutAfterLinger(socket);
    };
  });

  // Ahead of the app's own listener, so that a response can still be told to close its connection.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const connection = open.get(socket);
    if (connection === undefined) return;
    const { responses } = connection;
    responses.add(response);
    if (draining) response.shouldKeepAlive = false;
    response.once('close', () => {
      responses.delete(response);
      if (responses.size === 0) connection.quietAt = socket.bytesRead;
      if (!response.writableFinished) onCut(response);
      // Its bytes are all with the kernel (or the connection is gone): a FIN after them.
      if (draining && responses.size === 0) endConnection(socket);
    });
  });

  // Node's `close()` calls this first: connections with nothing in flight end now. One whose request is still
  // arriving stays: that request is answered once read (with `Connection: close`), or cut at the deadline.
  server.closeIdleConnections = () => {
    for (const [socket, { responses, quietAt }] of open) {
      if (responses.size === 0 && socket.bytesRead === quietAt) endConnection(socket);
    }
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
      const cut = open.size;
      for (const socket of open.keys()) socket.destroy();
      if (cut > 0) onDeadline(cut);
    }, deadlineMs);
    deadline.unref();
    server.once('close', () => clearTimeout(deadline));
  };
  const inFlight = (socket: Socket) => open.get(socket)?.responses ?? NONE;
  return Object.defineProperty(inFlight, 'connections', { get: () => open.size }) as InFlightResponses;
}

/** Destroys `socket` `LINGER_MS` after its last byte is handed over, unless its client has closed it by then. */
function cutAfterLinger(socket: Socket): void {
  const start = () => {
    const cut = setTimeout(() => socket.destroy(), LINGER_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  };
  if (socket.writableFinished) start();
  else socket.once('finish', start);
}
