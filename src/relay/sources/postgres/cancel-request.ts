// Cancelling a statement the relay gave up waiting for. Closing the connection does not stop it: a backend notices
// a closed socket only when it next reads or writes, so a statement past the client-side limit (one the server's own
// statement_timeout did not stop) would keep the backend busy for as long as it runs. PostgreSQL's CancelRequest
// does stop it: the backend's process id and secret key (sent at startup), on a connection of its own, opened like
// the first (same address, same TLS: a server or proxy that requires TLS refuses a cancel sent in the clear).
import type { Duplex } from 'node:stream';
import pg from 'pg';

/** What a connected `pg.Client` knows that a CancelRequest needs (the driver sets these, its types omit some). */
interface ConnectedClient {
  readonly host: string;
  readonly port: number;
  readonly ssl: unknown;
  readonly sslNegotiation?: string;
  readonly processID: number | null;
  readonly secretKey: number | null;
}

/** The driver's connection class, as far as a CancelRequest uses it. */
interface RawConnection {
  readonly stream: Duplex;
  on(event: 'connect' | 'sslconnect' | 'end' | 'error', listener: () => void): void;
  connect(port: number | string, host?: string): void;
  requestSsl(): void;
  cancel(processID: number, secretKey: number): void;
}

/** Used when the connection settings set no connect timeout: a cancel is never awaited without a bound. */
const DEFAULT_CANCEL_TIMEOUT_MS = 10_000;

/**
 * How a cancel went: `confirmed` once the server closed the cancel connection after reading the request (it answers
 * a CancelRequest with nothing else); `unconfirmed` when the connection failed or the server did not close it within
 * the limit; `no_key` when the server sent no key at startup (some poolers), so there was nothing to send.
 */
export type CancelOutcome = 'confirmed' | 'unconfirmed' | 'no_key';

/**
 * Asks the server to cancel what the backend of `client` runs. Settles once the server has closed the cancel
 * connection, or after `timeoutMs`; never rejects, and logs nothing: the secret key lets whoever holds it cancel
 * that backend's statements.
 */
export function cancelBackend(client: pg.Client, timeoutMs: number | undefined): Promise<CancelOutcome> {
  const { host, port, ssl, sslNegotiation, processID, secretKey } = client as unknown as ConnectedClient;
  if (typeof processID !== 'number' || typeof secretKey !== 'number') return Promise.resolve('no_key');
  return new Promise((resolve) => {
    const connection = new pg.Connection({
      ssl,
      sslNegotiation,
    } as pg.ConnectionConfig) as unknown as RawConnection;
    let sent = false;
    const timer = setTimeout(
      () => done(false),
      timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : DEFAULT_CANCEL_TIMEOUT_MS,
    );
    function done(closedByServer: boolean): void {
      clearTimeout(timer);
      connection.stream.destroy();
      resolve(sent && closedByServer ? 'confirmed' : 'unconfirmed');
    }
    const send = () => {
      connection.cancel(processID, secretKey);
      sent = true;
    };
    // A reset after the request was written is the server closing too.
    connection.on('error', () => done(true));
    connection.on('end', () => done(true));
    connection.on('connect', () => {
      if (!ssl) send();
      // Direct TLS negotiation starts the handshake on its own; otherwise TLS is asked for first, as at startup.
      else if (sslNegotiation !== 'direct') connection.requestSsl();
    });
    connection.on('sslconnect', send);
    try {
      if (host.startsWith('/')) connection.connect(`${host}/.s.PGSQL.${port}`);
      else connection.connect(port, host);
    } catch {
      done(false);
    }
  });
}
