// A scripted PostgreSQL server for protocol-level tests: it accepts a startup without a password (over TLS when
// the client asks and the backend has a certificate), then hands every frontend message it receives to the test,
// which decides what to answer and how to cut it into chunks.
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';

const TLS_DIR = join(import.meta.dirname, '..', 'fixtures', 'tls');
/** The test certificate (localhost, 127.0.0.1): pass it as `sslrootcert` to verify the fake backend. */
export const TEST_CA_PATH = join(TLS_DIR, 'test-server-cert.pem');
const SSL_REQUEST_CODE = 80877103;
const CANCEL_REQUEST_CODE = 80877102;

/** A CancelRequest the backend received: the key it named, and whether it came over TLS. */
export interface CancelRequest {
  readonly processID: number;
  readonly secretKey: number;
  readonly tls: boolean;
  /** Sessions (started connections) whose client had not closed them when the request came. */
  readonly openSessions: number;
}

export interface FrontendMessage {
  readonly type: string;
  readonly body: Buffer;
}

export interface FakeBackend {
  readonly url: string;
  /** Frontend messages received after startup, in order. */
  readonly received: FrontendMessage[];
  /** Parse messages of the batch whose Sync arrived last (read it when the Sync reaches `onMessage`). */
  readonly readParses: number;
  /** The messages of the batch whose Sync arrived last, the Sync left out (read it when the Sync reaches `onMessage`). */
  readonly batch: readonly FrontendMessage[];
  /** The Executes of the batch whose Sync arrived last, the guard's included (each read adds one). */
  readonly batchExecutes: number;
  /** Called for each message after startup. */
  onMessage: (message: FrontendMessage, socket: Socket) => void;
  readonly sockets: Socket[];
  /** CancelRequests received, in order. */
  readonly cancels: CancelRequest[];
  close(): Promise<void>;
}

/** A backend message as bytes. */
export function backendMessage(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

export function readyForQuery(status: 'I' | 'T' | 'E'): Buffer {
  return backendMessage('Z', Buffer.from(status));
}

export function commandComplete(tag: string): Buffer {
  return backendMessage('C', Buffer.from(`${tag}\0`));
}

export function dataRowMessage(cells: readonly (string | null)[]): Buffer {
  const parts = [Buffer.from([cells.length >> 8, cells.length & 0xff])];
  for (const cell of cells) {
    const length = Buffer.alloc(4);
    if (cell === null) {
      length.writeInt32BE(-1);
      parts.push(length);
      continue;
    }
    const bytes = Buffer.from(cell, 'utf8');
    length.writeInt32BE(bytes.length);
    parts.push(length, bytes);
  }
  return backendMessage('D', Buffer.concat(parts));
}

export function errorResponse(code: string, message: string): Buffer {
  return backendMessage('E', Buffer.from(`SERROR\0VERROR\0C${code}\0M${message}\0\0`));
}

/**
 * The replies of a batch of one live read (the guard, then the SELECT, one Sync): rows, or an error in the SELECT
 * (then the server skips to Sync, which rolls the implicit transaction back). `parses` is how many Parse messages
 * the batch sent (two for an unprepared read: the guard's and the SELECT's; `FakeBackend.readParses` counts them);
 * each gets a ParseComplete, except the last when `failedParse` says the SELECT's Parse is what failed.
 */
export function liveReadReplies(outcome: LiveReadOutcome): Buffer {
  const parses = outcome.parses ?? 2;
  const guard = [
    ...(parses >= 1 ? [backendMessage('1')] : []),
    backendMessage('2'),
    dataRowMessage(['on', '30000']),
    commandComplete('SELECT 1'),
  ];
  const selectParsed = parses >= 2;
  if ('error' in outcome) {
    return Buffer.concat([
      ...guard,
      ...(selectParsed && outcome.failedParse !== true ? [backendMessage('1')] : []),
      ...(outcome.running === true ? [backendMessage('2')] : []),
      outcome.error,
      readyForQuery('I'),
    ]);
  }
  return Buffer.concat([
    ...guard,
    ...(selectParsed ? [backendMessage('1')] : []),
    backendMessage('2'),
    ...outcome.rows.map(dataRowMessage),
    commandComplete(`SELECT ${outcome.rows.length}`),
    readyForQuery('I'),
  ]);
}

/**
 * What one read is answered with (its Parse count is filled in from what the read sent). An error comes where the
 * server raises it: at the SELECT's Parse (`failedParse`), at its Bind (the default), or while it runs (`running`).
 */
export type LiveReadOutcome =
  | { rows: (string | null)[][]; parses?: number }
  | { error: Buffer; parses?: number; failedParse?: boolean; running?: boolean };

/** The statements of a batch (everything up to its Sync), each its optional Parse, its Bind and its Execute. */
function batchStatements(messages: readonly FrontendMessage[]): { parsed: boolean }[] {
  const statements: { parsed: boolean }[] = [];
  let parsed = false;
  for (const message of messages) {
    if (message.type === 'P') parsed = true;
    if (message.type === 'E') {
      statements.push({ parsed });
      parsed = false;
    }
  }
  return statements;
}

/**
 * The replies a server sends for a batch as the live connection writes it (the guard first, then each read's
 * SELECT, one Sync): each SELECT is answered with `next()` until one fails, after which the server skips to the
 * Sync (the reads after it get no reply and no outcome).
 */
export function liveBatchReplies(messages: readonly FrontendMessage[], next: () => LiveReadOutcome): Buffer {
  const [guard, ...selects] = batchStatements(messages);
  const out: Buffer[] = [];
  if (guard?.parsed) out.push(backendMessage('1'));
  out.push(backendMessage('2'), dataRowMessage(['on', '30000']), commandComplete('SELECT 1'));
  for (const select of selects) {
    const outcome = next();
    if ('error' in outcome) {
      if (select.parsed && outcome.failedParse !== true) out.push(backendMessage('1'));
      if (outcome.running === true) out.push(backendMessage('2'));
      out.push(outcome.error);
      break;
    }
    if (select.parsed) out.push(backendMessage('1'));
    out.push(backendMessage('2'), ...outcome.rows.map(dataRowMessage));
    out.push(commandComplete(`SELECT ${outcome.rows.length}`));
  }
  out.push(readyForQuery('I'));
  return Buffer.concat(out);
}

/** Answers every batch at its Sync, each read with `outcome(n)`, n counting the reads the server ran from 1. */
export function answerReads(backend: FakeBackend, outcome: (read: number) => LiveReadOutcome): void {
  let reads = 0;
  backend.onMessage = (message, socket) => {
    if (message.type !== 'S') return;
    socket.write(liveBatchReplies(backend.batch, () => outcome(++reads)));
  };
}

/**
 * `backendKey`: the process id and secret key sent at startup (BackendKeyData), which a client needs to send a
 * CancelRequest; without it none is sent, as some poolers do.
 */
export async function startFakeBackend(
  options: {
    tls?: boolean;
    backendKey?: { processID: number; secretKey: number };
    /** Keep a cancel connection open rather than closing it (a server that never confirms a cancel). */
    holdCancels?: boolean;
  } = {},
): Promise<FakeBackend> {
  const sockets: Socket[] = [];
  const received: FrontendMessage[] = [];
  const cancels: CancelRequest[] = [];
  const openSessions = new Set<Socket>();
  const backend = {
    url: '',
    received,
    readParses: 0,
    batch: [] as FrontendMessage[],
    batchExecutes: 0,
    sockets,
    cancels,
    onMessage: (_message: FrontendMessage, _socket: Socket) => {},
  };
  let parsesSoFar = 0;
  let batchSoFar: FrontendMessage[] = [];
  const serve = (socket: Socket) => {
    sockets.push(socket);
    let buffer = Buffer.alloc(0);
    let started = false;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!started && buffer.length >= 8 && buffer.readInt32BE(4) === SSL_REQUEST_CODE) {
        buffer = buffer.subarray(8);
        if (!options.tls) {
          socket.write('N');
        } else {
          // The rest of the conversation runs inside TLS, with the test certificate.
          socket.removeAllListeners('data');
          socket.write('S');
          serve(
            new TLSSocket(socket, {
              isServer: true,
              key: readFileSync(join(TLS_DIR, 'test-server-key.pem')),
              cert: readFileSync(TEST_CA_PATH),
            }),
          );
          return;
        }
      }
      if (!started) {
        if (buffer.length < 4) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        if (length === 16 && buffer.readInt32BE(4) === CANCEL_REQUEST_CODE) {
          // As PostgreSQL does: no answer, the connection is closed.
          cancels.push({
            processID: buffer.readInt32BE(8),
            secretKey: buffer.readInt32BE(12),
            tls: socket instanceof TLSSocket,
            openSessions: openSessions.size,
          });
          if (!options.holdCancels) socket.destroy();
          return;
        }
        buffer = buffer.subarray(length);
        started = true;
        openSessions.add(socket);
        socket.on('end', () => openSessions.delete(socket));
        socket.on('close', () => openSessions.delete(socket));
        // AuthenticationOk, the backend's key when it has one, then ready.
        const key = options.backendKey;
        const keyData = Buffer.alloc(8);
        if (key !== undefined) {
          keyData.writeInt32BE(key.processID, 0);
          keyData.writeInt32BE(key.secretKey, 4);
        }
        socket.write(
          Buffer.concat([
            backendMessage('R', Buffer.from([0, 0, 0, 0])),
            ...(key === undefined ? [] : [backendMessage('K', keyData)]),
            readyForQuery('I'),
          ]),
        );
      }
      while (buffer.length >= 5) {
        const end = 1 + buffer.readInt32BE(1);
        if (buffer.length < end) return;
        const message = { type: String.fromCharCode(buffer[0] as number), body: buffer.subarray(5, end) };
        buffer = buffer.subarray(end);
        if (message.type === 'X') continue;
        received.push(message);
        if (message.type === 'P') parsesSoFar += 1;
        if (message.type === 'S') {
          backend.readParses = parsesSoFar;
          backend.batch = batchSoFar;
          backend.batchExecutes = batchSoFar.filter((sent) => sent.type === 'E').length;
          parsesSoFar = 0;
          batchSoFar = [];
        } else {
          batchSoFar.push(message);
        }
        backend.onMessage(message, socket);
      }
    });
  };
  const server: Server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  backend.url = `postgres://fake@127.0.0.1:${address.port}/fake`;
  return Object.assign(backend, {
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
