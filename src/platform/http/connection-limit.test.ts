import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { limitConnections } from './connection-limit.ts';

/** Opens a keep-alive connection, sends one request, and resolves with the status line, or '' when closed unanswered. */
function ask(port: number) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.setEncoding('utf8');
  socket.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
  const answer = new Promise<string>((resolve) => {
    socket.once('data', (chunk: string) => resolve(chunk.split('\r\n')[0] ?? ''));
    socket.once('close', () => resolve(''));
  });
  return { socket, answer };
}

describe('limitConnections in a cluster worker', () => {
  it('closes a connection over the limit as it arrives, and takes one again once a held one closes', async (t) => {
    const server = createServer((_request, response) => response.end('ok'));
    limitConnections(server, 2, true);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.after(() => server.close());
    const { port } = server.address() as { port: number };
    const held = [ask(port), ask(port)];
    t.after(() => {
      for (const { socket } of held) socket.destroy();
    });
    for (const { answer } of held) assert.match(await answer, /^HTTP\/1\.1 200/);
    assert.equal(await ask(port).answer, '');
    const first = held[0]?.socket;
    first?.destroy();
    if (first) await once(first, 'close');
    // The server sees the close a moment after the client: ask until it has counted it.
    let again = '';
    for (let attempt = 0; attempt < 50 && again === ''; attempt++) {
      const next = ask(port);
      again = await next.answer;
      held.push(next);
    }
    assert.match(again, /^HTTP\/1\.1 200/);
  });
});
