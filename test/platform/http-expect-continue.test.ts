// `Expect: 100-continue` over a real socket: the 100 goes out only once the body is read, so a request answered
// without its body (over the limit by its declared length, a refused credential) is never uploaded.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { addJsonPostRoute } from '../../src/platform/http/fast-lane.ts';
import { platformProblem } from '../../src/platform/problem/platform-problems.ts';
import { bareApp } from '../helpers/http-checks.ts';
import { useListening } from './http-limits-fixture.ts';

const LIMIT = 1024;

/** A connection that collects what the server sends and can wait for the next complete answer. */
function open(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let text = '';
  let closed = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    wake();
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
    wake();
  });
  return {
    socket,
    /** Resolves once `count` whole answers have arrived (or the connection closed); their status codes. */
    async statuses(count: number): Promise<number[]> {
      for (;;) {
        const found = wholeAnswers(text);
        if (found.length >= count || closed) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    get text() {
      return text;
    },
    closed: () =>
      closed ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', resolve)),
  };
}

/** The status codes of the answers in `text` that have fully arrived (heads, and bodies by their Content-Length). */
function wholeAnswers(text: string): number[] {
  const statuses: number[] = [];
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end < 0) return statuses;
    const headText = text.slice(at, end);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(headText)?.[1] ?? 0);
    if (text.length < end + 4 + length) return statuses;
    statuses.push(Number(headText.split(' ')[1]));
    at = end + 4 + length;
  }
}

const head = (path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n` +
  'expect: 100-continue\r\n\r\n';

describe('Expect: 100-continue', () => {
  const app = bareApp(5_000, { bodyLimit: LIMIT });
  app.post('/echo', async (request) => request.body);
  app.post(
    '/guarded',
    { onRequest: (_request, _reply, done) => done(platformProblem('auth.invalid_credential')) },
    async (request) => request.body,
  );
  app.get('/read', async () => ({}));
  addJsonPostRoute(app, '/lane/:id', async (request, reply) => reply.send(JSON.stringify(request.body)));
  const server = useListening(app);

  for (const path of ['/echo', '/lane/1']) {
    it(`answers a body declared over the limit 413 without asking for it (${path})`, async () => {
      const connection = open(server.port);
      connection.socket.write(head(path, 4 * LIMIT));
      assert.deepEqual(await connection.statuses(1), [413]);
      assert.match(connection.text, /internal\.payload_too_large/);
      assert.match(connection.text, /\r\nconnection: close\r\n/i);
      connection.socket.end();
      await connection.closed();
    });

    it(`asks for a body it reads, and keeps the connection after answering (${path})`, async () => {
      const connection = open(server.port);
      connection.socket.write(head(path, 7));
      assert.deepEqual(await connection.statuses(1), [100]);
      connection.socket.write('{"a":1}');
      assert.deepEqual(await connection.statuses(2), [100, 200]);
      assert.match(connection.text, /\{"a":1\}$/);
      connection.socket.write('GET /nope HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n');
      await connection.closed();
      assert.deepEqual(await connection.statuses(3), [100, 200, 404]);
    });
  }

  // A route that checks the credential before its body (as the admin routes do), a target refused before routing,
  // and targets no route takes: an unknown path, a method the path does not answer.
  for (const [path, status, code] of [
    ['/guarded', 401, 'auth.invalid_credential'],
    ['/echo?q=%zz', 400, 'http.invalid_query'],
    ['/nope', 404, 'http.not_found'],
    ['/read', 405, 'http.method_not_allowed'],
  ] as const) {
    it(`answers ${code} without asking for the body (${path})`, async () => {
      const connection = open(server.port);
      connection.socket.write(head(path, 7));
      assert.deepEqual(await connection.statuses(1), [status]);
      assert.ok(connection.text.includes(code), connection.text);
      connection.socket.end();
      await connection.closed();
    });
  }

  it('answers a request without a body as usual, and keeps its connection', async () => {
    const connection = open(server.port);
    connection.socket.write(
      'GET /nope HTTP/1.1\r\nhost: a\r\nexpect: 100-continue\r\n\r\n' +
        'GET /nope HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n',
    );
    await connection.closed();
    const finals = (await connection.statuses(2)).filter((status) => status !== 100);
    assert.deepEqual(finals, [404, 404]);
  });
});
