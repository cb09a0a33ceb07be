// One connection for live reads. The `pg` driver opens it (TLS, authentication, startup parameters, connect
// timeout: everything a connection URL can say), then the connection's socket is read and written here directly.
// Reads are pipelined: each is sent as soon as it is asked for (the reads of one event-loop turn in one write) and
// the server answers them in order, so a read's replies end at the next ReadyForQuery. Each distinct statement is
// prepared once per connection (a named statement the database parses and plans once) when asked.
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import pg from 'pg';
import { CLIENT_TIMEOUT_MESSAGE } from '../../../platform/postgres/client-timeout.ts';
import { cancelBackend } from './cancel-request.ts';
import { decodeDataRow, decodeError, encodeLiveRead, encodingChange, type ServerError } from './live-wire.ts';
import { preparedStatementTrouble, STATEMENT_MISSING } from './prepared-trouble.ts';

export interface LiveConnection {
  /**
   * Runs `guard` (a SELECT that makes the transaction READ ONLY and sets its timeout: its rows are dropped) and
   * then the SELECT `text` as one implicit transaction, behind any read already in flight on this connection
   * (each in its own transaction: a failed read does not touch the next); resolves with the SELECT's rows as
   * text. Rejects with the server's error (`code`, `severity`) or, when the connection fails or the client-side
   * timeout fires, with an error without a SQLSTATE. With `prepare`, both run as this connection's prepared
   * statements for their text (prepared by this read when it is the first).
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
  /** Reads sent and not yet answered. */
  readonly inFlight: number;
  /** Reads are in flight and none has completed for `STALL_MS`. */
  readonly stalled: boolean;
  close(): Promise<void>;
}

interface PendingRead {
  readonly resolve: (rows: (string | null)[][]) => void;
  readonly reject: (error: Error) => void;
  /** The client-side backstop, armed once the read is at the head of the pipeline (the server runs it then). */
  timer: NodeJS.Timeout | undefined;
  /** The prepared statement the read runs (its SELECT; none when unprepared), and whether this read prepares it. */
  readonly statements: readonly Prepared[];
  readonly parses: readonly Prepared[];
  /** ParseCompletes received after the guard's: the server answers them in the order of `parses`. */
  parsed: number;
  /** CommandCompletes received: rows before the first are the guard's. */
  completed: number;
  /** BindCompletes received: the SELECT runs once it is the second (the guard's is the first). */
  bound: number;
  /** Bytes of the SELECT's data rows so far: beyond `MAX_ANSWER_BYTES` they are dropped as they come. */
  bytes: number;
  rows: (string | null)[][];
  error: Error | undefined;
}

/** A SELECT prepared on the connection; `failure` is why preparing it failed, once it has. */
interface Prepared {
  readonly text: string;
  readonly name: string;
  failure: Error | undefined;
}

/**
 * Distinct SELECTs one connection prepares (filter and projection combinations); beyond them reads run unnamed.
 * A statement lives as long as its connection, so this bounds what the session holds on the server.
 */
const MAX_PREPARED = 100;
// Statement names are unique in the process and, by their random part, across relay processes: a session that turns
// out to be shared (a pooler) then reports the statements it lost rather than confusing two clients' statements.
const NAME_PREFIX = `ambit_${randomBytes(4).toString('hex')}_`;
let statementCount = 0;

const READY = 0x5a;
const PARSE_COMPLETE = 0x31;
const BIND_COMPLETE = 0x32;
const COMMAND_COMPLETE = 0x43;
const DATA_ROW = 0x44;
const ERROR_RESPONSE = 0x45;
const PARAMETER_STATUS = 0x53;
const IDLE = 0x49;
const HEADER = 5;
/** A read normally completes within a few milliseconds; a pipeline silent for longer has a slow statement at its head. */
const STALL_MS = 20;
/**
 * The largest server message accepted: a data row beyond it is skipped as it arrives (its read fails with
 * `ANSWER_TOO_LARGE`), any other message gives the connection up rather than buffering without bound.
 */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/**
 * The most row bytes one read holds: far past anything a page of an API response holds, and a bound on what one
 * read can take of the process's memory (a page of large cells would otherwise exhaust it).
 */
const MAX_ANSWER_BYTES = MAX_MESSAGE_BYTES;
/** Program limit exceeded: the read fails as refused (502), not as unavailable, since retrying cannot help. */
const ANSWER_TOO_LARGE = '54000';

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
  // A prepared statement went missing or stale here: reads in flight finish, new reads go to other connections.
  let retired = false;
  const prepared = new Map<string, Prepared>();
  // When the pipeline last moved: a read completed, or the first read went into an empty one.
  let lastProgress = 0;
  // In the order they were sent: the server answers in that order.
  const pending: PendingRead[] = [];
  let outbox: Buffer[] = [];
  // Bytes of a message that has not fully arrived yet: kept as chunks, joined once the message is complete.
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let needed = 0;
  // Bytes still to drop of a data row too large to accept, as they arrive.
  let skipping = 0;
  // A read moved the session's client_encoding off UTF8 (it outlives the read): the connection takes no more.
  let encodingLost = false;

  function settle(read: PendingRead, error: Error | undefined): void {
    if (read.timer !== undefined) clearTimeout(read.timer);
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

  /**
   * Starts the backstop of the read at the head of the pipeline. Reads behind it wait for it (the server runs
   * them one by one), so timing them from when they were sent would count their neighbours' time as theirs.
   */
  function armHead(): void {
    const head = pending[0];
    if (head === undefined || head.timer !== undefined) return;
    // It gives up on the whole connection: the answers behind a read left unanswered can no longer be told apart.
    // Its statement is cancelled (closing the socket does not stop it) without the read's answer waiting, and the
    // socket is closed once the cancel is sent: a pooler finds the backend to cancel by its client connection.
    head.timer = setTimeout(() => {
      failAll(new Error(CLIENT_TIMEOUT_MESSAGE));
      void cancelBackend(client, config.connectionTimeoutMillis).finally(() => stream.destroy());
    }, timeoutMs);
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
      if (read.completed === 0) return;
      read.bytes += end - start;
      if (read.bytes <= MAX_ANSWER_BYTES) read.rows.push(decodeDataRow(buffer, start, end));
      else answerTooLarge(read);
    } else if (type === COMMAND_COMPLETE) {
      read.completed += 1;
    } else if (type === PARSE_COMPLETE) {
      read.parsed += 1;
    } else if (type === BIND_COMPLETE) {
      read.bound += 1;
    } else if (type === ERROR_RESPONSE) {
      // After an error the server skips to Sync: there is one error per read.
      read.error ??= decodeError(buffer, start, end, read.bound >= 2);
    } else if (type === READY) {
      pending.shift();
      lastProgress = performance.now();
      if (read.statements.length > 0) checkStatements(read);
      settle(read, read.error);
      // Sync ends the implicit transaction, so the session is idle unless something unforeseen happened: then
      // the reads behind this one (sent or not) fail as if the connection had dropped, and it takes no more.
      if (buffer[start] !== IDLE) fail(new Error('the session was not idle after a live read'));
      else if (encodingLost) fail(new Error('the session no longer answers in UTF-8'));
      else armHead();
    } else if (type === PARAMETER_STATUS) {
      // A function the read ran changed the session's client_encoding (it outlives the read): its text and every
      // later read's would be misread. The read fails; the connection is dropped once it ends.
      const changed = encodingChange(buffer, start, end);
      if (changed === undefined) return;
      encodingLost = true;
      read.rows = [];
      read.error ??= changed;
    }
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

  /** What a completed read says about its prepared statements. */
  function checkStatements(read: PendingRead): void {
    // A Parse that failed created nothing (nor did the ones skipped after it): the reads sent behind this one with
    // those names fail with this read's error (not "does not exist"), and the next read prepares them afresh.
    for (const statement of read.parses.slice(read.parsed)) {
      statement.failure = read.error ?? new Error('the live statement could not be prepared');
      if (prepared.get(statement.text) === statement) prepared.delete(statement.text);
    }
    if (read.error === undefined) return;
    const failed = read.statements.find((statement) => statement.failure !== undefined);
    if (failed !== undefined && (read.error as Partial<ServerError>).code === STATEMENT_MISSING) {
      read.error = failed.failure;
    } else if (read.parses.length < read.statements.length && preparedStatementTrouble(read.error)) {
      retired = true;
    }
  }

  /** The prepared statement for `text` (a new one, to be parsed by this read, when there is none yet). */
  function statementFor(text: string, parses: Prepared[]): Prepared | undefined {
    const known = prepared.get(text);
    if (known !== undefined) return known;
    if (prepared.size >= MAX_PREPARED) return undefined;
    const statement = { text, name: `${NAME_PREFIX}${++statementCount}`, failure: undefined };
    prepared.set(text, statement);
    parses.push(statement);
    return statement;
  }

  function onData(chunk: Buffer): void {
    try {
      receive(chunk);
    } catch (error) {
      // A reply that does not parse (a broken or hostile server): this connection's answers cannot be trusted.
      fail(error instanceof Error ? error : new Error('the database sent a malformed reply'));
    }
  }

  /** The length a message header announces (type byte, then its length counting itself), checked. */
  function messageEnd(buffer: Buffer, at: number): number {
    const length = buffer.readInt32BE(at + 1);
    if (length < 4 || (length > MAX_MESSAGE_BYTES && buffer[at] !== DATA_ROW)) {
      throw new Error(`the database sent a message of ${length} bytes, which a live read does not accept`);
    }
    return at + 1 + length;
  }

  function receive(received: Buffer): void {
    let chunk = received;
    if (skipping > 0) {
      if (chunk.length <= skipping) {
        skipping -= chunk.length;
        return;
      }
      chunk = chunk.subarray(skipping);
      skipping = 0;
    }
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
      const end = messageEnd(buffer, at);
      if (end - at - 1 > MAX_MESSAGE_BYTES) {
        // A data row too large to accept (messageEnd refuses any other): never buffered, its read fails.
        answerTooLarge(pending[0]);
        if (end > buffer.length) {
          skipping = end - buffer.length;
          at = buffer.length;
          break;
        }
        at = end;
        continue;
      }
      if (end > buffer.length) break;
      onMessage(buffer, at + HEADER, end);
      at = end;
    }
    if (at < buffer.length) {
      const rest = buffer.subarray(at);
      partial.push(rest);
      partialBytes = rest.length;
      needed = rest.length >= HEADER ? messageEnd(rest, 0) : HEADER;
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
      return usable && !retired;
    },
    get inFlight() {
      return pending.length;
    },
    get stalled() {
      return pending.length > 0 && performance.now() - lastProgress > STALL_MS;
    },
    read(guard, text, values, prepare = false) {
      if (!usable || retired) return Promise.reject(new Error('Connection terminated unexpectedly'));
      const parses: Prepared[] = [];
      // The guard is never prepared: a function a view calls could DEALLOCATE a prepared guard and PREPARE a
      // harmless SELECT under its name (pg_prepared_statements shows it), and every later read on the session
      // would then run read-write. An unnamed statement is parsed from the text this read sends.
      const selectStatement = prepare ? statementFor(text, parses) : undefined;
      const statements: Prepared[] = selectStatement === undefined ? [] : [selectStatement];
      const message = encodeLiveRead(
        wireStatement(guard, undefined, parses),
        wireStatement(text, selectStatement, parses),
        values,
      );
      if (pending.length === 0) lastProgress = performance.now();
      return new Promise((resolve, reject) => {
        pending.push({
          resolve,
          reject,
          statements,
          parses,
          // The guard's own ParseComplete comes first and names no prepared statement.
          parsed: -1,
          completed: 0,
          bound: 0,
          bytes: 0,
          rows: [],
          error: undefined,
          timer: undefined,
        });
        armHead();
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

/** How a read sends one of its statements: unnamed (parsed every time), or prepared (parsed by its first read). */
function wireStatement(text: string, statement: Prepared | undefined, parses: readonly Prepared[]) {
  if (statement === undefined) return { text, name: '', parse: true };
  return { text, name: statement.name, parse: parses.includes(statement) };
}
