// `server.max_connections` under `--workers`: a worker that holds its limit closes a further connection as it
// arrives, as one process does, rather than handing it back to the primary, which would pass it from worker to
// worker for as long as they stay full (a loop that keeps the processes busy while it goes on).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { useServedWorkers } from './relay-scale-fixture.ts';

interface Connection {
  readonly socket: Socket;
  /** Resolves with what the server sent before it closed the connection. */
  readonly closed: Promise<string>;
  /** Resolves with the first bytes the server sends. */
  readonly answered: Promise<string>;
  isOpen(): boolean;
}

/** A keep-alive connection that sends one `GET /healthz`. */
function open(url: string): Connection {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  let open = true;
  let answer: (text: string) => void = () => {};
  const answered = new Promise<string>((resolve) => {
    answer = resolve;
  });
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
    answer(received);
  });
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      open = false;
      answer(received);
      resolve(received);
    }),
  );
  socket.write('GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n');
  return { socket, closed, answered, isOpen: () => open };
}

describe('relay serve --workers 2 with server.max_connections: 1', () => {
  const served = useServedWorkers({
    prepare: (fixture) => {
      const text = readFileSync(fixture.configPath, 'utf8');
      writeFileSync(fixture.configPath, text.replace('server:\n', 'server:\n  max_connections: 1\n'));
    },
  });

  it('closes a connection that finds every worker at its limit, unanswered, while the held ones stay open', async () => {
    const { url } = served.relay;
    // One connection per worker: each is answered, and kept open.
    const held = [open(url), open(url)];
    for (const connection of held) assert.match(await connection.answered, /^HTTP\/1\.1 200 /);
    const further = open(url);
    try {
      assert.equal(await further.closed, '', 'a connection over the limit is closed without an answer');
      assert.deepEqual(
        held.map((connection) => connection.isOpen()),
        [true, true],
      );
    } finally {
      for (const connection of [...held, further]) connection.socket.destroy();
    }
  });
});
