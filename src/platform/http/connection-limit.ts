// `max_connections` for a listener. Node's `server.maxConnections` closes a connection over the limit as it
// arrives, but in a node:cluster worker it refuses the connection back to the primary instead, which hands it to
// another worker, and back again while every worker is full: a loop that keeps the primary and the workers busy
// and leaves the client waiting (nodejs/node#54882). A worker closes such a connection itself, as one process does.
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Holds at most `max` client connections open on `server`; further ones are closed as they arrive. */
export function limitConnections(server: Server, max: number, inWorker = cluster.isWorker): void {
  if (!inWorker) {
    server.maxConnections = max;
    return;
  }
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= max) {
      socket.destroy();
      return;
    }
    open++;
    socket.once('close', () => {
      open--;
    });
  });
}
