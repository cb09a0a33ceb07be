// Ending a connection without losing what it still has to deliver. Bytes a server has written may still sit in the
// kernel's buffers, on either side, long after Node has handed them over. Closing the socket while bytes it
// received are unread, or receiving more once it is closed (a request the client pipelined), makes the kernel send
// a reset, which discards them: a slow client reading a large response would lose its end. So the connection is
// half-closed (a FIN after the last byte) and stays open, reading and dropping whatever the client still sends,
// until the client closes its side; the caller bounds how long that may take.
import type { Socket } from 'node:net';

const ending = new WeakSet<Socket>();

function discard(): void {}

/** Ends `socket` after the bytes already written; no request it receives from now on is read or answered. */
export function endConnection(socket: Socket): void {
  if (socket.destroyed || ending.has(socket)) return;
  ending.add(socket);
  // node:http feeds its parser straight from the socket's handle until a `data` listener is added; its own listener
  // then feeds the parser, so removing it leaves the bytes to `discard`.
  socket.on('data', discard);
  for (const listener of socket.listeners('data')) {
    if (listener !== discard) socket.removeListener('data', listener as (chunk: Buffer) => void);
  }
  // Read on even if node:http paused the connection: unread bytes are what turns the close into a reset.
  socket.resume();
  // A connection node:http paused while its parser read the handle (a body nobody consumed, as after a 413) keeps
  // the stream's read pending from before, so `resume()` does not start the handle again: start it as node:http's
  // own resume would.
  const handle = (socket as Socket & { _handle?: { reading?: boolean; readStart?: () => number } })._handle;
  if (handle?.readStart && handle.reading === false) {
    handle.reading = true;
    handle.readStart();
  }
  // node:http's keep-alive timer would destroy the socket while the client is still reading.
  socket.setTimeout(0);
  if (!socket.writableEnded) socket.end();
}
