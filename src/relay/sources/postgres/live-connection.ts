// One connection for live reads. The `pg` driver opens it (TLS, authentication, startup parameters, connect
// timeout: everything a connection URL can say), then the connection's socket is read and written here directly.
// Reads are pipelined and batched: the reads asked for in one event-loop turn leave in one write as one batch (one
// read-only guard, each read's SELECT, one Sync: one implicit transaction), and the server answers batches in
// order. Each distinct statement is prepared once per connection (a named statement the database parses and plans
// once) when asked. A read asked for while an identical one waits unsent (same guard, statement and values) is
// answered with that read's rows: both would run in the same transaction, so their answers could not differ.
import type { Duplex } from 'node:stream';
import pg from 'pg';
import { CLIENT_TIMEOUT_MESSAGE } from '../../../platform/postgres/client-timeout.ts';
import { type CancelOutcome, cancelBackend } from './cancel-request.ts';
import { createReplyFrames, HEADER, MAX_MESSAGE_BYTES } from './live-reply-frames.ts';
import { createLiveStatements, type Prepared } from './live-statements.ts';
import { decodeDataRow, decodeError, encodeLiveBatch, encodingChange, type WireRead } from './live-wire.ts';
import { type PendingRead, queueRead, settle } from './pending-read.ts';

export interface LiveConnection {
  /**
   * Runs the SELECT `text` behind `guard` (a SELECT that makes the transaction READ ONLY and sets its timeout:
   * its rows are dropped), in the batch of the reads asked for in the same event-loop turn: one implicit
   * transaction, after any batch already in flight on this connection. A read that fails does not fail the others:
   * the reads the server skipped after it are sent again in the next batch. Resolves with the SELECT's rows as
   * text. Rejects with the server's error (`code`, `severity`) or, when the connection fails or the client-side
   * timeout fires, with an error without a SQLSTATE. With `prepare`, the SELECT runs as this connection's
   * prepared statement for its text (prepared by this read when it is the first).
   */
  read(
    guard: string,
    text: string,
    values: readonly unknown[],
    prepare?: boolean,
  ): Promise<(string | null)[][]>;
  /**
   * False once the connection failed, timed out, ended a read outside an idle transaction state, or found a
   * statement it prepared gone or stale (`preparedStatementTrouble`): reads already sent still complete.
   */
  readonly usable: boolean;
  /** Reads asked for and not yet answered. */
  readonly inFlight: number;
  /** Reads are in flight and none has completed for `STALL_MS`. */
  readonly stalled: boolean;
  close(): Promise<void>;
}

/** Reads sent together under one guard and one Sync. */
interface Batch {
  readonly reads: PendingRead[];
  /** The guard's CommandComplete came: replies now belong to `reads[at]`. */
  guarded: boolean;
  /** The read the replies belong to (every read before it completed). */
  at: number;
  /** Why every read of the batch fails: the guard's own error, or the session's encoding moved during it. */
  error: Error | undefined;
}

const READY = 0x5a;
const PARSE_COMPLETE = 0x31;
const BIND_COMPLETE = 0x32;
const COMMAND_COMPLETE = 0x43;
const DATA_ROW = 0x44;
const ERROR_RESPONSE = 0x45;
const PARAMETER_STATUS = 0x53;
const IDLE = 0x49;
/** A read normally completes within a few milliseconds; a pipeline silent for longer has a slow statement at its head. */
const STALL_MS = 20;
/**
 * The most row bytes one read holds: far past anything a page of an API response holds, and a bound on what one
 * read can take of the process's memory (a page of large cells would otherwise exhaust it).
 */
const MAX_ANSWER_BYTES = MAX_MESSAGE_BYTES;
/** How long a close waits for the server to take the goodbye when the connection settings set no connect timeout. */
const DEFAULT_CLOSE_TIMEOUT_MS = 5000;
/** Program limit exceeded: the read fails as refused (502), not as unavailable, since retrying cannot help. */
const ANSWER_TOO_LARGE = '54000';

/**
 * Opens a connection; `timeoutMs` bounds each statement on the client side (a backstop for the server's timeout).
 * `onLost` hears of a connection that ends without being closed here (server restart, network), with the reason;
 * `onCancel` of how the cancel of a statement past that limit went.
 */
export async function openLiveConnection(
  config: pg.ClientConfig,
  timeoutMs: number,
  onLost: (error: unknown) => void = () => {},
  onCancel: (outcome: CancelOutcome) => void = () => {},
): Promise<LiveConnection> {
  const client = new pg.Client(config);
  // Socket failures after the take-over surface below (as a closed stream); the driver's copy of them is dropped.
  client.on('error', () => {});
  await client.connect();
  const stream = (client as unknown as { connection: { stream: Duplex } }).connection.stream;
  stream.removeAllListeners('data');

  let usable = true;
  // A prepared statement went missing or stale here: reads in flight finish, new reads go to other connections.
  let retired = false;
  const statements = createLiveStatements();
  // When the pipeline last moved: a read completed, or the first read went into an empty one.
  let lastProgress = 0;
  // Asked for and not sent yet, then sent, in batches the server answers in order.
  let queued: PendingRead[] = [];
  let flushing = false;
  const batches: Batch[] = [];
  let sent = 0;
  // The client-side backstop of the statement at the head of the pipeline (the server runs them one by one).
  let timer: NodeJS.Timeout | undefined;
  // A read moved the session's client_encoding off UTF8 (it outlives the read): the connection takes no more.
  let encodingLost = false;
  // The cancel of a statement past the time limit, under way: it closes the socket itself once sent.
  let cancelling: Promise<void> | undefined;

  /** Every read still waiting fails with `error` (the connection is gone or given up on). */
  function failAll(error: Error): void {
    usable = false;
    stopTimer();
    const waiting = [...batches.splice(0).flatMap((batch) => batch.reads), ...queued];
    queued = [];
    sent = 0;
    for (const read of waiting) settle(read, error);
  }

  function fail(error: Error): void {
    failAll(error);
    stream.destroy();
  }

  /**
   * (Re)starts the backstop when a statement reaches the head of the pipeline. Statements behind it wait for it,
   * so timing them from when they were sent would count their neighbours' time as theirs. It gives up on the
   * whole connection: the answers behind a statement left unanswered can no longer be told apart. The statement
   * is cancelled (closing the socket does not stop it) without the reads waiting, and the socket is closed once
   * the cancel is sent: a pooler finds the backend to cancel by its client connection.
   */
  function restartTimer(): void {
    if (batches.length === 0) {
      stopTimer();
      return;
    }
    if (timer !== undefined) {
      timer.refresh();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      if (batches.length === 0) return;
      failAll(new Error(CLIENT_TIMEOUT_MESSAGE));
      cancelling = cancelBackend(client, config.connectionTimeoutMillis).then((outcome) => {
        stream.destroy();
        onCancel(outcome);
      });
    }, timeoutMs);
  }

  function stopTimer(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }

  function scheduleFlush(): void {
    if (flushing) return;
    flushing = true;
    setImmediate(flush);
  }

  /** Sends the queued reads: one batch per run of reads with the same guard, all in one write. */
  function flush(): void {
    flushing = false;
    if (queued.length === 0 || !usable) return;
    const reads = queued;
    queued = [];
    const wasIdle = batches.length === 0;
    const messages: Buffer[] = [];
    let from = 0;
    for (let index = 1; index <= reads.length; index++) {
      if (
        index < reads.length &&
        (reads[index] as PendingRead).guard === (reads[from] as PendingRead).guard
      ) {
        continue;
      }
      messages.push(sendBatch(reads.slice(from, index)));
      from = index;
    }
    sent += reads.length;
    stream.write(messages.length === 1 ? (messages[0] as Buffer) : Buffer.concat(messages));
    if (wasIdle) restartTimer();
  }

  function sendBatch(reads: PendingRead[]): Buffer {
    // Statements this batch parses: a read after the one that parses one may bind it in the same batch.
    const parsedHere = new Set<Prepared>();
    const wire: WireRead[] = reads.map((read) => {
      const before = parsedHere.size;
      read.statement = read.prepare ? statements.forRead(read.text, parsedHere) : undefined;
      read.parses = parsedHere.size > before;
      read.parsed = false;
      read.bound = false;
      read.bytes = 0;
      read.rows = [];
      read.error = undefined;
      const select = read.statement;
      return {
        select:
          select === undefined
            ? { text: read.text, name: '', parse: true }
            : { text: read.text, name: select.name, parse: read.parses },
        values: read.values,
      };
    });
    // The guard is never prepared: a function a view calls could DEALLOCATE a prepared guard and PREPARE a
    // harmless SELECT under its name (pg_prepared_statements shows it), and every later batch on the session
    // would then run read-write. An unnamed statement is parsed from the text each batch sends.
    batches.push({ reads, guarded: false, at: 0, error: undefined });
    return encodeLiveBatch({ text: (reads[0] as PendingRead).guard, name: '', parse: true }, wire);
  }

  /** The read the next replies belong to: none while the guard answers. */
  function current(batch: Batch | undefined): PendingRead | undefined {
    return batch?.guarded === true ? batch.reads[batch.at] : undefined;
  }

  function onMessage(buffer: Buffer, start: number, end: number): void {
    const batch = batches[0];
    if (batch === undefined) return;
    const read = current(batch);
    const type = buffer[start - HEADER];
    if (type === DATA_ROW) {
      // The guard's row (its settings) is dropped.
      if (read === undefined || !read.bound) return;
      read.bytes += end - start;
      if (read.bytes <= MAX_ANSWER_BYTES) read.rows.push(decodeDataRow(buffer, start, end));
      else answerTooLarge(read);
    } else if (type === COMMAND_COMPLETE) {
      if (!batch.guarded) batch.guarded = true;
      else if (read !== undefined) {
        batch.at += 1;
        lastProgress = performance.now();
        restartTimer();
      }
    } else if (type === PARSE_COMPLETE) {
      if (read !== undefined) read.parsed = true;
    } else if (type === BIND_COMPLETE) {
      if (read !== undefined) read.bound = true;
    } else if (type === ERROR_RESPONSE) {
      // After an error the server skips to Sync: the reads after this one did not run.
      if (read === undefined) batch.error ??= decodeError(buffer, start, end, false);
      else read.error ??= decodeError(buffer, start, end, read.bound);
    } else if (type === READY) {
      finishBatch(batch, buffer[start] === IDLE);
    } else if (type === PARAMETER_STATUS) {
      // A function a read ran changed the session's client_encoding (it outlives the read): the text of the
      // batch's reads (and every later read's) would be misread. They fail; the connection is dropped.
      const changed = encodingChange(buffer, start, end);
      if (changed === undefined) return;
      encodingLost = true;
      batch.error ??= changed;
    }
  }

  /** The batch's ReadyForQuery: its reads settle in order, those the server skipped go out again. */
  function finishBatch(batch: Batch, idle: boolean): void {
    batches.shift();
    sent -= batch.reads.length;
    lastProgress = performance.now();
    const again: PendingRead[] = [];
    // The read whose error made the server skip the rest of the batch, if one did.
    const stopped = batch.reads[batch.at]?.error !== undefined;
    batch.reads.forEach((read, index) => {
      if (
        read.statement !== undefined &&
        statements.settled(read.statement, read.parses, read.parsed, read.error)
      ) {
        // A statement it did not parse itself is gone or stale: the session is not ours alone, or the table changed.
        retired = true;
      }
      if (!batch.guarded) settle(read, batch.error ?? new Error('the read-only guard of a live read failed'));
      else if (index < batch.at) settle(read, read.error ?? batch.error);
      else if (index === batch.at && read.error !== undefined) settle(read, read.error);
      else if (index > batch.at && stopped) again.push(read);
      else settle(read, batch.error ?? new Error('the database ended a live read without answering it'));
    });
    if (again.length > 0) {
      queued = [...again, ...queued];
      scheduleFlush();
    }
    // Sync ends the implicit transaction, so the session is idle unless something unforeseen happened: then
    // the reads behind this batch (sent or not) fail as if the connection had dropped, and it takes no more.
    if (!idle) fail(new Error('the session was not idle after a live read'));
    else if (encodingLost) fail(new Error('the session no longer answers in UTF-8'));
    else restartTimer();
  }

  /** The read's answer passed `MAX_ANSWER_BYTES`: it fails, and the rest of its rows are dropped as they come. */
  function answerTooLarge(read: PendingRead | undefined): void {
    if (read === undefined) return;
    read.bytes = Number.POSITIVE_INFINITY;
    read.rows = [];
    read.error ??= Object.assign(
      new Error(`the answer of a live read exceeds ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`),
      { severity: 'ERROR', code: ANSWER_TOO_LARGE, running: true },
    );
  }

  const frames = createReplyFrames(onMessage, () => answerTooLarge(current(batches[0])));
  stream.on('data', (chunk: Buffer) => {
    try {
      frames.receive(chunk);
    } catch (error) {
      // A reply that does not parse (a broken or hostile server): this connection's answers cannot be trusted.
      fail(error instanceof Error ? error : new Error('the database sent a malformed reply'));
    }
  });
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
      return usable && !retired;
    },
    get inFlight() {
      return sent + queued.length;
    },
    get stalled() {
      return sent + queued.length > 0 && performance.now() - lastProgress > STALL_MS;
    },
    read(guard, text, values, prepare = false) {
      if (!usable || retired) return Promise.reject(new Error('Connection terminated unexpectedly'));
      if (sent + queued.length === 0) lastProgress = performance.now();
      return new Promise((resolve, reject) => {
        // Reads asked for in the same turn of the event loop (requests that arrived together) leave in one batch.
        if (queueRead(queued, { guard, text, values, prepare, resolve, reject })) scheduleFlush();
      });
    },
    async close() {
      closing = true;
      const running = batches.length > 0;
      failAll(new Error('Connection closed'));
      // The pool closes a timed-out connection as soon as its reads failed: the cancel still goes out first.
      if (cancelling !== undefined) return cancelling;
      // Closed with a statement still running (the pool ended under it): closing the socket does not stop it.
      if (running && !stream.destroyed) {
        cancelling = cancelBackend(client, config.connectionTimeoutMillis).then(() => {
          stream.destroy();
        });
        return cancelling;
      }
      // A server that never answers the goodbye (a network partition) would hold the close, and a shutdown, forever.
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        client.end().catch(() => {}),
        new Promise((resolve) => {
          bound = setTimeout(resolve, config.connectionTimeoutMillis || DEFAULT_CLOSE_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(bound);
      stream.destroy();
    },
  };
}
