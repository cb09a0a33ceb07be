// Clients that stop reading their answer: each holds a connection slot and its answer's bytes for as long as it
// waits, so one that never reads is cut once its answer has made no progress for `server.request_timeout`.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { addGetRoute } from '../../src/platform/http/fast-lane.ts';
import type { RouteHandler } from '../../src/platform/http/route-types.ts';
import { bareApp, rawRequest } from '../helpers/http-checks.ts';
import { until } from '../helpers/wait-until.ts';
import { useListening } from './http-limits-fixture.ts';

// Past what the kernel buffers on loopback (sender and receiver together), so most of it waits in the process.
const LARGE = Buffer.alloc(16 * 1024 * 1024, 'x');

describe('a client that never reads its answer', () => {
  const app = bareApp(300, { maxConnections: 1 });
  const send: RouteHandler = (_request, reply) => {
    reply.header('content-type', 'application/octet-stream').send(LARGE);
  };
  addGetRoute(app, '/lane', send);
  app.get('/routed', send);
  app.get('/small', async () => ({ small: true }));
  const accepted: Socket[] = [];
  app.server.on('connection', (socket: Socket) => accepted.push(socket));
  const server = useListening(app);
  // The one connection slot is free once the connections of earlier tests have closed.
  const slotFree = () =>
    until('earlier connections are closed', () => accepted.every((socket) => socket.destroyed));

  for (const path of ['/lane', '/routed']) {
    it(`is cut, and its connection slot freed for the next client (${path})`, {
      timeout: 30_000,
    }, async () => {
      const { port } = server;
      await slotFree();
      const before = accepted.length;
      const stalled = connect(port, '127.0.0.1', () =>
        stalled.write(`GET ${path} HTTP/1.1\r\nhost: a\r\n\r\n`),
      );
      stalled.on('error', () => {});
      // Never reads: the answer stops in the kernel's buffers, the rest waits in the server.
      stalled.pause();
      try {
        await until('the server accepted the stalled connection', () => accepted.length > before);
        const held = accepted[before] as Socket;
        await until('the answer is waiting on the stalled client', () => held.writableLength > 0);
        await until('the stalled connection is closed', () => held.destroyed);
        // With the slot free, another client is answered.
        const next = await rawRequest(port, '/small', { headers: { connection: 'close' } });
        assert.equal(next.statusCode, 200);
        assert.deepEqual(JSON.parse(next.body), { small: true });
      } finally {
        stalled.destroy();
      }
    });
  }

  it('lets a client that reads, however slowly, take its whole answer', { timeout: 30_000 }, async () => {
    const { port } = server;
    await slotFree();
    const received = await new Promise<number>((resolve, reject) => {
      let bytes = 0;
      const reader = connect(port, '127.0.0.1', () =>
        reader.write('GET /lane HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n'),
      );
      reader.on('error', reject);
      // Stops for a while after every 2 MiB, never as long as the time-out: the answer keeps moving, so it is not cut.
      let mark = 0;
      reader.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes - mark < 2 * 1024 * 1024) return;
        mark = bytes;
        reader.pause();
        setTimeout(() => reader.resume(), 100);
      });
      reader.on('close', () => resolve(bytes));
    });
    assert.ok(received > LARGE.length, `received ${received} bytes`);
  });
});
