import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { drainOnClose } from './drain-server.ts';

/** A server whose requests are answered only when the test says, with the drain's view of its connections. */
async function heldServer(onDeadline?: (cut: number) => void) {
  const held: ServerResponse[] = [];
  const arrived: (() => void)[] = [];
  const server = createServer((_request, response) => {
    held.push(response);
    for (const wake of arrived.splice(0)) wake();
  });
  const inFlight = drainOnClose(server, 1_000, undefined, onDeadline);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const nextRequest = () => new Promise<void>((resolve) => arrived.push(resolve));
  return { server, port, held, inFlight, nextRequest };
}

describe('drainOnClose', () => {
  it('keeps nothing for a connection its client closed while the response was pending', async (t) => {
    const { server, port, held, inFlight, nextRequest } = await heldServer();
    t.after(() => server.close());
    for (let client = 0; client < 5; client++) {
      const socket = connect(port, '127.0.0.1');
      const arrived = nextRequest();
      socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
      await arrived;
      const response = held.at(-1) as ServerResponse;
      const closed = once(response, 'close');
      socket.destroy();
      await closed;
    }
    // Each response closed after its connection: nothing of those connections may stay behind.
    assert.equal(inFlight.connections, 0);
  });

  it('keeps nothing for a keep-alive connection once its client closes it after an answer', async (t) => {
    const { server, port, held, inFlight, nextRequest } = await heldServer();
    t.after(() => server.close());
    const accepted = once(server, 'connection');
    const socket = connect(port, '127.0.0.1');
    const [serverSide] = (await accepted) as [Socket];
    const arrived = nextRequest();
    socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    await arrived;
    assert.equal(inFlight.connections, 1);
    (held[0] as ServerResponse).end('ok');
    await once(socket, 'data');
    const gone = once(serverSide, 'close');
    socket.destroy();
    await gone;
    assert.equal(inFlight.connections, 0);
  });

  it('says how many connections it cut at its deadline: a request still unanswered is not waited for', async () => {
    const said: number[] = [];
    const { server, port, nextRequest } = await heldServer((cut) => said.push(cut));
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const arrived = nextRequest();
    socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    await arrived;
    const closed = once(server, 'close');
    server.close();
    await closed;
    assert.deepEqual(said, [1]);
  });

  it('says nothing when the drain ends before its deadline', async () => {
    const said: number[] = [];
    const { server, port, held, nextRequest } = await heldServer((cut) => said.push(cut));
    const socket = connect(port, '127.0.0.1');
    // A client that closes its side once the server has ended the connection.
    socket.on('end', () => socket.end());
    socket.resume();
    const arrived = nextRequest();
    socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    await arrived;
    const closed = once(server, 'close');
    server.close();
    (held[0] as ServerResponse).end('ok');
    await closed;
    assert.deepEqual(said, []);
  });
});
