// Closing a service's HTTP server: responses in flight reach even a slow client whole (one that pipelines more
// requests too), idle connections close at once, and requests read while closing get a problem document.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { addGetRoute } from '../../src/platform/http/fast-lane.ts';
import { assertProblem, assertSecurityHeaders, bareApp, listenLocal } from '../helpers/http-checks.ts';

// Far more than the kernel buffers of a loopback connection hold (a few MiB): most of it still waits in the
// server's write buffer when the close begins.
const BIG = Buffer.alloc(16 * 1024 * 1024, 'x');

interface RawResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** Content-Length as declared. */
  readonly declaredLength: number;
}

/** The responses in `bytes`, one after the other; the last body may be shorter than declared (a cut response). */
function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const [statusLine = '', ...lines] = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const declaredLength = Number(headers['content-length'] ?? 0);
    const body = bytes.subarray(headEnd + 4, Math.min(headEnd + 4 + declaredLength, bytes.length));
    responses.push({ statusCode: Number(statusLine.split(' ')[1]), headers, body, declaredLength });
    at = headEnd + 4 + declaredLength;
  }
  return responses;
}

/** A raw client connection, which keeps everything it receives and notes when the server closes it. */
interface RawClient {
  readonly socket: Socket;
  /** Resolves with every byte received once the server has closed the connection. */
  readonly closedByServer: Promise<Buffer>;
  /** Resolves with the bytes received so far once at least `count` have arrived. */
  received(count: number): Promise<Buffer>;
}

/** What the client received before the server closed: one 200 answer with the whole large body. */
async function onlyWholeResponse(client: RawClient): Promise<RawResponse> {
  const [response, ...more] = parseResponses(await client.closedByServer);
  assert.equal(more.length, 0);
  assert.equal(response?.statusCode, 200);
  assert.equal(response.declaredLength, BIG.length);
  assert.equal(response.body.length, BIG.length, 'the body was cut');
  return response;
}

async function openClient(port: number): Promise<RawClient> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  let total = 0;
  const waiting: { count: number; resolve: (bytes: Buffer) => void }[] = [];
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    total += chunk.length;
    for (const wait of waiting.filter((w) => w.count <= total)) {
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve(Buffer.concat(chunks));
    }
  });
  const closedByServer = new Promise<Buffer>((resolve, reject) => {
    socket.once('end', () => resolve(Buffer.concat(chunks)));
    socket.once('error', reject);
  });
  return {
    socket,
    closedByServer,
    received: (count) =>
      total >= count
        ? Promise.resolve(Buffer.concat(chunks))
        : new Promise((resolve) => waiting.push({ count, resolve })),
  };
}

/** Resolves when `app` begins to close (its preClose hooks run), so a test can act while it drains. */
function closingStarted(app: FastifyInstance): Promise<void> {
  return new Promise((resolve) => {
    app.addHook('preClose', (done) => {
      done();
      resolve();
    });
  });
}

/** Reads one chunk per event-loop turn, slower than the server writes, until `done()` holds; then stops reading. */
function readSlowlyUntil(socket: Socket, done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const step = (): void => {
      socket.pause();
      if (!done()) {
        setImmediate(() => socket.resume());
        return;
      }
      socket.off('data', step);
      resolve();
    };
    socket.on('data', step);
    socket.resume();
  });
}

/** The server's side of the latest connection to `app`. */
function serverSide(app: FastifyInstance): () => Socket {
  let latest: Socket | undefined;
  app.server.on('connection', (socket: Socket) => {
    latest = socket;
  });
  return () => latest as Socket;
}

/** Resolves once the server has ended (or closed) its side of the connection. */
function endedByServer(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.once('finish', resolve);
    socket.once('close', resolve);
  });
}

function bigApp(): FastifyInstance {
  const app = bareApp();
  app.get('/big', (_request, reply) => {
    reply.header('content-type', 'application/octet-stream');
    reply.send(BIG);
  });
  return app;
}

const GET_BIG = 'GET /big HTTP/1.1\r\nhost: a\r\n\r\n';

// Bytes handed to the kernel are not yet with the client: a connection closed while the client still sends (a
// pipelined request) is reset, and the kernel drops what the client had not read.
describe('closing while a slow client reads a large response and pipelines more requests', () => {
  it('delivers the whole response written before the close; the request sent after it is not read', async () => {
    const app = bigApp();
    const server = serverSide(app);
    let written = false;
    app.server.on('request', (_request, response: ServerResponse) =>
      response.once('finish', () => (written = true)),
    );
    const client = await openClient(await listenLocal(app));
    client.socket.write(GET_BIG);
    // Once Node has handed the whole response to the kernel, the connection is idle to the server, though its end
    // still waits in the kernel's buffers.
    await readSlowlyUntil(client.socket, () => written);
    const closed = app.close();
    await endedByServer(server());
    client.socket.write(GET_BIG);
    client.socket.resume();

    await onlyWholeResponse(client);
    await closed;
  });

  it('delivers the whole response and the 503 of a request read while closing, whatever is sent after', async () => {
    const app = bigApp();
    const server = serverSide(app);
    const closing = closingStarted(app);
    const client = await openClient(await listenLocal(app));
    client.socket.write(GET_BIG);
    await client.received(1);
    client.socket.pause();
    const closed = app.close();
    await closing;
    const read = new Promise((resolve) => app.server.once('request', resolve));
    client.socket.write(GET_BIG);
    await read;
    // The server has handed both answers over and ended its side; the client, still reading, sends one more.
    await readSlowlyUntil(client.socket, () => server().writableFinished || server().destroyed);
    client.socket.write(GET_BIG);
    client.socket.resume();

    const [first, second, ...more] = parseResponses(await client.closedByServer);
    assert.equal(more.length, 0);
    assert.equal(first?.statusCode, 200);
    assert.equal(first.body.length, BIG.length, 'the body was cut');
    assert.ok(second, 'no answer to the request read while closing');
    assertProblem({ ...second, body: second.body.toString() }, 503, 'http.shutting_down');
    assert.equal(second.headers.connection, 'close');
    await closed;
  });
});

describe('closing with a large response still being written to a slow client', () => {
  for (const lane of [true, false]) {
    it(`delivers the whole body, then closes the connection (${lane ? 'fast lane' : 'Fastify'} route)`, async () => {
      const app = bareApp();
      const send = (
        _request: unknown,
        reply: { header(n: string, v: string): unknown; send(b: Buffer): unknown },
      ) => {
        reply.header('content-type', 'application/octet-stream');
        reply.send(BIG);
      };
      if (lane) addGetRoute(app, '/big', send);
      else app.get('/big', (request, reply) => send(request, reply));
      const closing = closingStarted(app);
      const client = await openClient(await listenLocal(app));
      client.socket.write('GET /big HTTP/1.1\r\nhost: a\r\n\r\n');
      // The response has started: the server has handed all of it to Node. The client stops reading ...
      await client.received(1);
      client.socket.pause();
      const closed = app.close();
      await closing;
      // ... until the close is under way: then it reads everything it is sent.
      await new Promise((resolve) => setTimeout(resolve, 100));
      client.socket.resume();

      const response = await onlyWholeResponse(client);
      assert.ok(response.body.equals(BIG));
      await closed;
    });
  }
});

describe('closing with an idle keep-alive connection', () => {
  it('closes the connection at once, without waiting for the keep-alive timeout', {
    timeout: 20_000,
  }, async () => {
    const app = bareApp(60_000);
    // Past this test's time limit, as the drain deadline (twice the request timeout) is: the close must not wait.
    app.server.keepAliveTimeout = 120_000;
    app.get('/small', async () => ({ ok: true }));
    const client = await openClient(await listenLocal(app));
    client.socket.write('GET /small HTTP/1.1\r\nhost: a\r\n\r\n');
    const [response] = parseResponses(await client.received(1));
    assert.equal(response?.statusCode, 200);
    assert.equal(response.headers.connection, 'keep-alive');

    await app.close();
    await client.closedByServer;
  });
});

describe('closing while a request body never arrives', () => {
  it('still answers it 504 internal.timeout, then closes the connection', async () => {
    const app = bareApp(300);
    app.post('/echo', async (request) => request.body);
    const closing = closingStarted(app);
    const client = await openClient(await listenLocal(app));
    const read = new Promise((resolve) => app.server.once('request', resolve));
    client.socket.write(
      'POST /echo HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\ncontent-length: 20\r\n\r\n{"a"',
    );
    await read;
    const closed = app.close();
    await closing;

    const [response, ...more] = parseResponses(await client.closedByServer);
    assert.equal(more.length, 0);
    assert.ok(response, 'no answer');
    assertProblem({ ...response, body: response.body.toString() }, 504, 'internal.timeout');
    await closed;
  });
});

describe('a request read while the server closes', () => {
  it('answers 503 http.shutting_down as a problem, through the commit hook, and closes the connection', async () => {
    const committed: { id: string; status: number; code: string | undefined }[] = [];
    const app = bareApp(5_000, {
      commitResponse(request, reply, done) {
        committed.push({ id: request.id, status: reply.statusCode, code: request.ctx.errorCode });
        done();
      },
    });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let running: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      running = resolve;
    });
    app.get('/hold', async () => {
      running();
      await held;
      return { held: true };
    });
    app.get('/after', async () => ({ served: true }));
    const closing = closingStarted(app);
    const client = await openClient(await listenLocal(app));
    client.socket.write('GET /hold HTTP/1.1\r\nhost: a\r\n\r\n');
    await started;

    const closed = app.close();
    await closing;
    // The connection is busy with /hold, so it stays open; this request arrives on it while the server drains.
    const read = new Promise((resolve) => app.server.once('request', resolve));
    client.socket.write('GET /after HTTP/1.1\r\nhost: a\r\n\r\n');
    await read;
    release();

    const [first, second, ...more] = parseResponses(await client.closedByServer);
    assert.equal(more.length, 0);
    assert.equal(first?.statusCode, 200);
    assert.ok(second, 'no answer to the request sent while closing');
    const http = { ...second, body: second.body.toString() };
    const body = assertProblem(http, 503, 'http.shutting_down');
    assertSecurityHeaders(http);
    assert.equal(second.headers.connection, 'close');
    // Committed (audited) like any other answer; it went out before /hold, which was still running.
    assert.deepEqual(
      committed.find((record) => record.id === body.request_id),
      { id: body.request_id, status: 503, code: 'http.shutting_down' },
    );
    await closed;
  });
});

describe('closing while a request is still arriving', () => {
  for (const keepAlive of [false, true]) {
    it(`answers it 503 http.shutting_down once read, rather than closing without an answer (${keepAlive ? 'a keep-alive connection answered before' : 'a new connection'})`, async () => {
      const app = bareApp(5_000);
      app.get('/small', async () => ({ ok: true }));
      const server = serverSide(app);
      const closing = closingStarted(app);
      const client = await openClient(await listenLocal(app));
      if (keepAlive) {
        client.socket.write('GET /small HTTP/1.1\r\nhost: a\r\n\r\n');
        const [answered] = parseResponses(await client.received(1));
        assert.equal(answered?.statusCode, 200);
      }
      // A slow client: the request line is with the server, the rest of the headers are not.
      const sent = server().bytesRead;
      client.socket.write('GET /small HTTP/1.1\r\n');
      while (server().bytesRead === sent) await new Promise((resolve) => setImmediate(resolve));
      const closed = app.close();
      await closing;
      client.socket.write('host: a\r\n\r\n');

      const responses = parseResponses(await client.closedByServer);
      const answer = responses[keepAlive ? 1 : 0];
      assert.equal(responses.length, keepAlive ? 2 : 1, 'the request was dropped without an answer');
      assert.ok(answer);
      assertProblem({ ...answer, body: answer.body.toString() }, 503, 'http.shutting_down');
      assert.equal(answer.headers.connection, 'close');
      await closed;
    });
  }
});
