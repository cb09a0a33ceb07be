// An answer its client does not read waits in the process (what the kernel's buffers cannot take) and holds its
// connection slot: node:http has no limit on how long, so clients that request large answers and never read them
// could fill `max_connections` for good. An answer still not handed to the kernel in full is watched; once none of
// its bytes has moved for the stall limit, its connection is cut. A client reading slowly keeps it moving and gets
// every byte. Nothing is watched for answers the kernel took whole, which are nearly all of them.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Call before the server listens. `stallMs`: how long an answer may make no progress. */
export function cutStalledAnswers(server: Server, stallMs: number): void {
  // One listener for every answer (`this` is the response), so a request adds no closure of its own.
  function handedOver(this: ServerResponse): void {
    const socket = this.socket;
    if (socket !== null && socket.writableLength > 0) watch(this, socket, stallMs);
  }
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    // Emitted once, when the whole answer is with the socket (for a pipelined one, once it is its turn).
    response.on('prefinish', handedOver);
  });
}

function watch(response: ServerResponse, socket: Socket, stallMs: number): void {
  // A socket's time-out counts a write that moves as activity, so it fires only when no byte has moved for
  // `stallMs`. node:http tells the response being written of it, and destroys the socket itself only when nobody
  // listens (the keep-alive time-out of an idle connection, which reuses the same time-out, still does).
  const stalled = () => socket.destroy();
  response.once('timeout', stalled);
  socket.setTimeout(stallMs);
  // Ahead of node:http's own listener, which may then set the keep-alive time-out for the idle connection.
  response.prependOnceListener('finish', () => {
    response.off('timeout', stalled);
    socket.setTimeout(0);
  });
}
