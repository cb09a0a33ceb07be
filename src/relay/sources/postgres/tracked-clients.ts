// The connections of a relay's PostgreSQL sources outside the live pools (snapshot reads, their shared moment, live
// table probes) while they are open, so that closing the sources (the end of a shutdown, once the drain is over)
// stops them: a statement waiting for a lock, or a large COPY, would otherwise hold the process, and its backend,
// until `query_timeout` ends it.
import type { Duplex } from 'node:stream';
import type pg from 'pg';
import { cancelBackend } from './cancel-request.ts';

export interface TrackedClients {
  /** Tracks `client` until its connection ends; `connectTimeoutMs` bounds the wait for its cancel. */
  add(client: pg.Client, connectTimeoutMs: number | undefined): void;
  /** Cancels what each tracked connection runs (closing the socket does not stop it), then drops it. */
  cancelAll(): Promise<void>;
}

export function createTrackedClients(): TrackedClients {
  const open = new Map<pg.Client, number | undefined>();
  return {
    add(client, connectTimeoutMs) {
      open.set(client, connectTimeoutMs);
      client.once('end', () => open.delete(client));
    },
    async cancelAll() {
      const clients = [...open];
      open.clear();
      await Promise.all(
        clients.map(async ([client, timeoutMs]) => {
          await cancelBackend(client, timeoutMs);
          // Not `end()`: its goodbye waits for a server that may still be busy with the statement.
          (client as unknown as { connection: { stream: Duplex } }).connection.stream.destroy();
        }),
      );
    },
  };
}
