// A client mistake answered once its request has been read in full leaves the connection usable, on the fast lane
// and on Fastify's path alike: the requests the client sent after it on the same connection are answered, not run
// (and audited) behind a connection that closes without their answers.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addGetRoute, addJsonPostRoute } from '../../src/platform/http/fast-lane.ts';
import type { RouteRequest } from '../../src/platform/http/route-types.ts';
import { platformProblem } from '../../src/platform/problem/platform-problems.ts';
import { bareApp, listenLocal } from '../helpers/http-checks.ts';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Writes `bytes` on one connection and returns every answer received until the server closes it. */
function exchange(port: number, bytes: string): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const answers: Answer[] = [];
      let at = 0;
      while (at < text.length) {
        const headEnd = text.indexOf('\r\n\r\n', at);
        if (headEnd < 0) break;
        const [statusLine = '', ...lines] = text.slice(at, headEnd).split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        answers.push({
          status: Number(statusLine.split(' ')[1]),
          headers,
          body: text.slice(headEnd + 4, headEnd + 4 + length),
        });
        at = headEnd + 4 + length;
      }
      resolve(answers);
    });
  });
}

const NEXT = 'GET /read/2 HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n';
const json = (framing: string, body: string) =>
  `POST /submit HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\n${framing}\r\n\r\n${body}`;

const cases = [
  ['invalid JSON', json('content-length: 2', '{x'), 'The body is not valid JSON.'],
  [
    'invalid chunked JSON',
    json('transfer-encoding: chunked', '2\r\n{x\r\n0\r\n\r\n'),
    'The body is not valid JSON.',
  ],
  ['an empty body', json('content-length: 0', ''), 'The JSON body is empty.'],
] as const;

for (const lane of [true, false]) {
  describe(`a body refused once read in full (${lane ? 'fast lane' : 'Fastify'} routes)`, () => {
    const committed: string[] = [];
    const app = bareApp(5_000, {
      fastLane: lane,
      commitResponse(request: RouteRequest, reply, done) {
        committed.push(`${request.method} ${request.url} ${reply.statusCode}`);
        done();
      },
    });
    addJsonPostRoute(app, '/submit', async (_request, reply) => reply.send(Buffer.from('{}')));
    addGetRoute(app, '/read/:id', async (_request, reply) => reply.send(Buffer.from('{"read":true}')));
    let port = 0;
    before(async () => {
      port = await listenLocal(app);
    });
    after(() => app.close());

    for (const [name, bytes, detail] of cases) {
      it(`answers ${name} 400 and keeps the connection for the request sent after it`, async () => {
        committed.length = 0;
        const answers = await exchange(port, bytes + NEXT);
        assert.deepEqual(
          answers.map((answer) => answer.status),
          [400, 200],
          JSON.stringify(answers),
        );
        const [refused, next] = answers as [Answer, Answer];
        assert.equal(JSON.parse(refused.body).code, 'http.invalid_body');
        assert.equal(JSON.parse(refused.body).detail, detail);
        assert.notEqual(refused.headers.connection?.toLowerCase(), 'close');
        assert.equal(next.body, '{"read":true}');
        // Every request run was answered: none was audited without its answer reaching the client.
        assert.deepEqual(committed.sort(), ['GET /read/2 200', 'POST /submit 400']);
      });
    }
  });
}

for (const lane of [true, false]) {
  describe(`the Connection header of a refusal (${lane ? 'fast lane' : 'Fastify'} routes)`, () => {
    const app = bareApp(5_000, { fastLane: lane });
    addJsonPostRoute(app, '/submit', async (_request, reply) => reply.send(Buffer.from('{}')));
    addGetRoute(app, '/read/:id', async (request, reply) => {
      if ((request.params as { id: string }).id === 'missing') throw platformProblem('http.not_found');
      return reply.send(Buffer.from('{"read":true}'));
    });
    let port = 0;
    before(async () => {
      port = await listenLocal(app);
    });
    after(() => app.close());

    const refusals = [
      ['a route refusal', 'GET /read/missing', '', 404],
      [
        'an invalid JSON body',
        'POST /submit',
        'content-type: application/json\r\ncontent-length: 2\r\n',
        400,
      ],
    ] as const;
    for (const [name, line, headers, status] of refusals) {
      const body = line.startsWith('POST') ? '{x' : '';
      it(`announces the close a client asked for after ${name}`, async () => {
        const answers = await exchange(
          port,
          `${line} HTTP/1.1\r\nhost: a\r\n${headers}connection: close\r\n\r\n${body}`,
        );
        assert.deepEqual(
          answers.map((answer) => answer.status),
          [status],
        );
        assert.equal(answers[0]?.headers.connection?.toLowerCase(), 'close');
      });

      it(`keeps an HTTP/1.0 keep-alive connection after ${name}, and says so`, async () => {
        const answers = await exchange(
          port,
          `${line} HTTP/1.0\r\n${headers}connection: keep-alive\r\n\r\n${body}${NEXT}`,
        );
        assert.deepEqual(
          answers.map((answer) => answer.status),
          [status, 200],
        );
        // An HTTP/1.0 client keeps the connection only when the answer says it stays open.
        assert.equal(answers[0]?.headers.connection?.toLowerCase(), 'keep-alive');
      });
    }
  });
}
