// A response sent while its request's body is still arriving ends the connection: a client trickling a body in
// must not keep it open past the request timeout, nor get a second answer to the same request later.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addGetRoute, addJsonPostRoute } from '../../src/platform/http/fast-lane.ts';
import { bareApp, listenLocal } from '../helpers/http-checks.ts';

/**
 * Writes `head`, then `drip` every 50 ms until the connection closes; the bytes received, and whether the server
 * ended the connection (rather than the client giving up on it).
 */
function trickle(
  port: number,
  head: string,
  drip: string,
): Promise<{ text: string; endedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let endedByServer = false;
    const socket = connect(port, '127.0.0.1', () => socket.write(head, 'latin1'));
    const timer = setInterval(() => {
      if (socket.writable) socket.write(drip, 'latin1');
    }, 50);
    // Kept open, the connection would last until node:http's own request deadline (minutes): give up well before.
    const giveUp = setTimeout(() => socket.destroy(), 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => {
      endedByServer = true;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') endedByServer = true;
      else if (error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), endedByServer });
    });
  });
}

const statusLines = (text: string) => [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => match[1]);

describe('a response sent before the request body has arrived', () => {
  const app = bareApp(200);
  addJsonPostRoute(app, '/lane/:id', async (_request, reply) => reply.send(Buffer.from('{}')), {
    bodyLimit: 4096,
  });
  app.post('/fastify', async () => ({}));
  addGetRoute(app, '/read/:id', async (_request, reply) => reply.send(Buffer.from('{}')));
  let port = 0;
  before(async () => {
    port = await listenLocal(app);
  });
  after(() => app.close());

  for (const path of ['/lane/1', '/fastify']) {
    it(`answers a trickling body 504 once and closes the connection (${path})`, async () => {
      const { text, endedByServer } = await trickle(
        port,
        `POST ${path} HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":"`,
        'a',
      );
      assert.deepEqual(statusLines(text), ['504']);
      assert.match(text, /internal\.timeout/);
      assert.match(text, /\r\nconnection: close\r\n/i);
      assert.ok(endedByServer, 'the server kept the connection open');
    });
  }

  it('closes the connection after answering a GET whose chunked body keeps coming', async () => {
    const { text, endedByServer } = await trickle(
      port,
      'GET /read/1 HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n',
      '1\r\na\r\n',
    );
    assert.deepEqual(statusLines(text), ['200']);
    assert.match(text, /\r\nconnection: close\r\n/i);
    assert.ok(endedByServer, 'the server kept the connection open');
  });

  for (const path of ['/lane/1', '/fastify']) {
    it(`keeps the connection of a request whose body has arrived (${path})`, async () => {
      const text = await new Promise<string>((resolve, reject) => {
        let received = '';
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(
            `POST ${path} HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`,
            'latin1',
          ),
        );
        socket.on('data', (chunk) => {
          received += chunk.toString('latin1');
          if (received.endsWith('{}')) {
            socket.destroy();
            resolve(received);
          }
        });
        socket.on('error', reject);
        // Closed by the server before its answer was whole: the assertions below say what was missing.
        socket.on('close', () => resolve(received));
      });
      assert.deepEqual(statusLines(text), ['200']);
      assert.match(text, /\r\nconnection: keep-alive\r\n/i);
    });
  }
});
