// How the connector reads answers framed in ways HTTP/1.1 allows but a relay seldom sends, and answers that stall:
// each is read as it is meant, or fails with a stable reason within the attempt's time-out.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../platform/clock.ts';
import { systemRandom } from '../../platform/random.ts';
import { createRelayConnector } from './create-relay-connector.ts';
import { auditCodeOf } from './failure-reason.ts';
import { connection, failure, LOOKUP } from './relay-connector-fixture.ts';

const body = (id: string) =>
  JSON.stringify({ data: [{ national_id: id, deceased: false }], pagination: { has_more: false } });
const answer = (id: string, head = 'HTTP/1.1 200 OK') =>
  `${head}\r\nContent-Type: application/json\r\nContent-Length: ${body(id).length}\r\n\r\n${body(id)}`;

/** Answers each request head with `respond(socket, lookup value)`, on raw sockets kept open as the client keeps them. */
function rawRelay(): { server: Server; port: () => number; respond: (socket: Socket, id: string) => void } {
  const relay = {
    server: createServer((socket) => {
      socket.on('error', () => {});
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        for (let end = buffered.indexOf('\r\n\r\n'); end >= 0; end = buffered.indexOf('\r\n\r\n')) {
          const head = buffered.slice(0, end);
          buffered = buffered.slice(end + 4);
          relay.respond(socket, /national_id=([^&\s]+)/.exec(head)?.[1] ?? '');
        }
      });
    }),
    port: () => (relay.server.address() as { port: number }).port,
    respond: (_socket: Socket, _id: string) => {},
  };
  return relay;
}

describe('registry_data_api connector: answer framing and stalls', () => {
  const relay = rawRelay();
  const sleeps: number[] = [];
  before(() => new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve)));
  after(() => new Promise<void>((resolve) => relay.server.close(() => resolve())));
  const reader = (timeout = 2000) =>
    createRelayConnector(
      { relay: connection(relay.port(), { timeout }) },
      new Map([['relay', 'relay-secret']]),
      { clock: systemClock, random: systemRandom, sleep: async (ms) => void sleeps.push(ms) },
    );
  const readAll = async (timeout: number, ids: string[]) => {
    const connector = reader(timeout);
    try {
      const rows = [];
      for (const id of ids) rows.push((await connector.read({ ...LOOKUP, value: id })).row.national_id);
      return rows;
    } finally {
      connector.close();
    }
  };

  it('reads HTTP/1.0 answers, close-delimited or not, and answers closing their connection each time', async () => {
    relay.respond = (socket, id) =>
      socket.end(`HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n${body(id)}`);
    assert.deepEqual(await readAll(2000, ['FAKE-1', 'FAKE-2']), ['FAKE-1', 'FAKE-2']);
    relay.respond = (socket, id) => socket.write(answer(id, 'HTTP/1.0 200 OK'));
    assert.deepEqual(await readAll(2000, ['FAKE-3', 'FAKE-4']), ['FAKE-3', 'FAKE-4']);
    relay.respond = (socket, id) =>
      socket.end(answer(id).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
    assert.deepEqual(await readAll(2000, ['FAKE-5', 'FAKE-6']), ['FAKE-5', 'FAKE-6']);
  });

  it('skips an interim 102 or 103 before the answer', async () => {
    relay.respond = (socket, id) =>
      socket.write(
        `HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n${answer(id)}`,
      );
    assert.deepEqual(await readAll(2000, ['FAKE-1']), ['FAKE-1']);
  });

  it("never takes bytes sent past an answer's Content-Length as the next read's answer", async () => {
    // The surplus is a whole answer for someone else: read as the next answer on the socket, it would be taken
    // for the next subject's record.
    relay.respond = (socket, id) => socket.write(answer(id) + answer('FAKE-other'));
    assert.deepEqual(await readAll(2000, ['FAKE-1', 'FAKE-2', 'FAKE-3']), ['FAKE-1', 'FAKE-2', 'FAKE-3']);
  });

  it('cuts off an answer sent a byte at a time at the time-out, as it does a silent one', async () => {
    const timers: NodeJS.Timeout[] = [];
    relay.respond = (socket, id) => {
      const text = answer(id);
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || sent === text.length) clearInterval(timer);
        else socket.write(text[sent++] as string);
      }, 20);
      timers.push(timer);
    };
    sleeps.length = 0;
    const connector = reader(100);
    const problem = await failure(connector.read(LOOKUP));
    connector.close();
    for (const timer of timers) clearInterval(timer);
    assert.deepEqual(
      [problem.status, problem.code, auditCodeOf(problem), problem.extras.retryable],
      [503, 'source.unavailable', 'source.timeout', true],
    );
    // Every attempt was cut off the same way, then retried.
    assert.deepEqual([timers.length, sleeps.length], [3, 2]);
  });

  for (const [status, reason] of [
    ['204 No Content', 'source.http_204'],
    ['304 Not Modified', 'source.redirect_refused'],
  ] as const) {
    it(`answers a ${status} where a page is expected 503, without retrying it`, async () => {
      let asked = 0;
      relay.respond = (socket) => {
        asked++;
        socket.write(`HTTP/1.1 ${status}\r\n\r\n`);
      };
      const connector = reader();
      const problem = await failure(connector.read(LOOKUP));
      connector.close();
      assert.deepEqual(
        [problem.status, problem.code, auditCodeOf(problem)],
        [503, 'source.unavailable', reason],
      );
      assert.equal(asked, 1);
    });
  }
});
