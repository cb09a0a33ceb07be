// One connection for live reads. The `pg` driver opens it (TLS, authentication, startup parameters, connect
// timeout: everything a connection URL can say), then the connection's socket is read and written here directly.
// Reads are pipelined: each is sent as soon as it is asked for (the reads of one event-loop turn in one write) and
// the server answers them in order, so a read's replies are the next three ReadyForQuery segments.
import type { Duplex } from 'node:stream';
import pg from 'pg';
import { decodeDataRow, decodeError, encodeLiveRead, READY_PER_READ } from './live-wire.ts';
import { CLIENT_TIMEOUT_MESSAGE } from './read-only-session.ts';

export interface LiveConnection {
  /**
   * Runs `opening` (a simple query that opens a READ ONLY transaction), then the SELECT, then COMMIT, behind any
   * read already in flight on this connection (each in its own transaction: a failed read does not touch the
   * next); resolves with the SELECT's rows as text. Rejects with the server's error (`code`, `severity`) or, when
   * the connection fails or the client-side timeout fires, with an error without a SQLSTATE.
   */
  read(opening: Buffer, text: string, values: readonly unknown[]): Promise<(string | null)[][]>;
  /** False once the connection failed, timed out, or ended a read outside an idle transaction state. */
  readonly usable: boolean;
  /** Reads sent and not yet answered. */
  readonly inFlight: number;
  /** Reads are in flight and none has completed for `STALL_MS`. */
  readonly stalled: boolean;
  close(): Promise<void>;
}

interface PendingRead {
  readonly resolve: (rows: (string | null)[][]) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
  rows: (string | null)[][];
  ready: number;
  error: Error | undefined;
}

const READY = 0x5a;
const DATA_ROW = 0x44;
const ERROR_RESPONSE = 0x45;
const IDLE = 0x49;
const HEADER = 5;
/** A read normally completes within a few milliseconds; a pipeline silent for longer has a slow statement at its head. */
const STALL_MS = 20;

/**
 * Opens a connection; `timeoutMs` bounds each read on the client side (a backstop for the server's timeout).
 * `onLost` hears of a connection that ends without being closed here (server restart, network), with the reason.
 */
export async function openLiveConnection(
  config: pg.ClientConfig,
  timeoutMs: number,
  onLost: (error: unknown) => void = () => {},
): Promise<LiveConnection> {
  const client = new pg.Client(config);
  // Socket failures after the take-over surface below (as a closed stream); the driver's copy of them is dropped.
  client.on('error', () => {});
  await client.connect();
  const stream = (client as unknown as { connection: { stream: Duplex } }).connection.stream;
  stream.removeAllListeners('data');

  let usable = true;
  // When the pipeline last moved: a read completed, or the first read went into an empty one.
  let lastProgress = 0;
  // In the order they were sent: the server answers in that order.
  const pending: PendingRead[] = [];
  let outbox: Buffer[] = [];
  // Bytes of a message that has not fully arrived yet: kept as chunks, joined once the message is complete.
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let needed = 0;

  function settle(read: PendingRead, error: Error | undefined): void {
    clearTimeout(read.timer);
    if (error === undefined) read.resolve(read.rows);
    else read.reject(error);
  }

  /** Every read still waiting fails with `error` (the connection is gone or given up on). */
  function failAll(error: Error): void {
    usable = false;
    outbox = [];
    for (const read of pending.splice(0)) settle(read, error);
  }

  function fail(error: Error): void {
    failAll(error);
    stream.destroy();
  }

  function flush(): void {
    if (outbox.length === 0 || !usable) return;
    const message = outbox.length === 1 ? (outbox[0] as Buffer) : Buffer.concat(outbox);
    outbox = [];
    stream.write(message);
  }

  function onMessage(buffer: Buffer, start: number, end: number): void {
    const read = pending[0];
    if (read === undefined) return;
    const type = buffer[start - HEADER];
    if (type === DATA_ROW) {
      read.rows.push(decodeDataRow(buffer, start));
    } else if (type === ERROR_RESPONSE) {
      // The first error is the one that matters (later ones only say the transaction was aborted).
      read.error ??= decodeError(buffer, start, end);
    } else if (type === READY) {
      read.ready += 1;
      if (read.ready < READY_PER_READ) return;
      pending.shift();
      lastProgress = performance.now();
      settle(read, read.error);
      // After COMMIT the session is idle unless something unforeseen happened: then the reads behind this one
      // (sent or not) fail as if the connection had dropped, and it takes no further read.
      if (buffer[start] !== IDLE) fail(new Error('the session was not idle after a live read'));
    }
  }

  function onData(chunk: Buffer): void {
    let buffer = chunk;
    if (partialBytes > 0) {
      partial.push(chunk);
      partialBytes += chunk.length;
      if (partialBytes < needed) return;
      buffer = Buffer.concat(partial, partialBytes);
      partial = [];
      partialBytes = 0;
    }
    let at = 0;
    while (buffer.length - at >= HEADER) {
      const end = at + 1 + buffer.readInt32BE(at + 1);
      if (end > buffer.length) break;
      onMessage(buffer, at + HEADER, end);
      at = end;
    }
    if (at < buffer.length) {
      const rest = buffer.subarray(at);
      partial.push(rest);
      partialBytes = rest.length;
      needed = rest.length >= HEADER ? 1 + rest.readInt32BE(1) : HEADER;
    }
  }

  stream.on('data', onData);
  let closing = false;
  let lastError: unknown;
  stream.on('error', (error: unknown) => {
    lastError = error;
  });
  stream.on('close', () => {
    const lost = !closing && usable;
    failAll(new Error('Connection terminated unexpectedly'));
    if (lost) onLost(lastError ?? new Error('Connection terminated unexpectedly'));
  });

  return {
    get usable() {
      return usable;
    },
    get inFlight() {
      return pending.length;
    },
    get stalled() {
      return pending.length > 0 && performance.now() - lastProgress > STALL_MS;
    },
    read(opening, text, values) {
      if (!usable) return Promise.reject(new Error('Connection terminated unexpectedly'));
      const message = encodeLiveRead(opening, text, values);
      if (pending.length === 0) lastProgress = performance.now();
      return new Promise((resolve, reject) => {
        pending.push({
          resolve,
          reject,
          rows: [],
          ready: 0,
          error: undefined,
          // The backstop gives up on the whole connection: its answers can no longer be told apart.
          timer: setTimeout(() => fail(new Error(CLIENT_TIMEOUT_MESSAGE)), timeoutMs),
        });
        // Reads asked for in the same turn of the event loop (requests that arrived together) leave in one write.
        if (outbox.push(message) === 1) setImmediate(flush);
      });
    },
    async close() {
      closing = true;
      failAll(new Error('Connection closed'));
      await client.end().catch(() => {});
    },
  };
}
