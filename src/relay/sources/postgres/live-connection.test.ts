// A live connection's reads: pipelining, stalls, refusals, lost connections, time-outs, transactions, TLS.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import {
  answerReads,
  backendMessage,
  commandComplete,
  dataRowMessage,
  errorResponse,
  liveBatchReplies,
  liveReadReplies,
  readyForQuery,
  TEST_CA_PATH,
} from '../../../../test/helpers/fake-postgres-backend.ts';
import { openLiveConnection } from './live-connection.ts';
import { GUARD, useFakeBackend } from './live-connection-test-support.ts';
import { classifyPgError } from './read-only-session.ts';

/** Lets the reads asked for so far leave as one batch: later reads go in another. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Writes `bytes` one at a time: every message boundary falls inside some chunk. */
async function dribble(socket: Socket, bytes: Buffer): Promise<void> {
  for (const byte of bytes) {
    socket.write(Buffer.from([byte]));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('a live connection', () => {
  const setup = useFakeBackend();
  const { open } = setup;

  it('answers batched and pipelined reads in order, from replies cut at every byte', async () => {
    const { backend } = setup;
    const batches: Buffer[] = [];
    const rows: (string | null)[][][] = [
      [
        ['1', 'Ada'],
        ['2', null],
      ],
      [['3', 'Łódź']],
      [['4', 'Zoë']],
    ];
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      batches.push(liveBatchReplies(backend.batch, () => ({ rows: rows.shift() ?? [] })));
      // The second batch's replies go out once both batches have arrived: the client must tell them apart.
      if (batches.length === 2) void dribble(socket, Buffer.concat(batches));
    };
    const live = await open();
    const first = live.read(GUARD, 'SELECT a, b FROM t WHERE a = $1', ['x']);
    const second = live.read(GUARD, 'SELECT a, b FROM t WHERE a = $1', ['y']);
    await nextTurn();
    const third = live.read(GUARD, 'SELECT a, b FROM t WHERE a = $1', ['z']);
    assert.equal(live.inFlight, 3);
    assert.deepEqual(await first, [
      ['1', 'Ada'],
      ['2', null],
    ]);
    assert.deepEqual(await second, [['3', 'Łódź']]);
    assert.deepEqual(await third, [['4', 'Zoë']]);
    assert.equal(live.inFlight, 0);
    assert.equal(live.usable, true);
    assert.deepEqual(
      backend.received.map((message) => message.type).join(''),
      'PBEPBEPBES' + 'PBEPBES',
      'the reads of one turn: the guard once, then each SELECT parsed, bound and executed, then one Sync',
    );
  });

  it('reads of one turn under different guards go as one batch per guard, in one write', async () => {
    const { backend } = setup;
    const guards: string[] = [];
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      guards.push((backend.batch[0] as { body: Buffer }).body.toString('utf8', 1).split('\0')[0] as string);
      socket.write(liveBatchReplies(backend.batch, () => ({ rows: [[`b${guards.length}`]] })));
    };
    const live = await open();
    const other = "SELECT set_config('statement_timeout', '5', true)";
    const reads = [
      live.read(GUARD, 'SELECT 1', []),
      live.read(GUARD, 'SELECT 2', []),
      live.read(other, 'SELECT 3', []),
    ];
    assert.deepEqual(await Promise.all(reads), [[['b1']], [['b1']], [['b2']]]);
    assert.deepEqual(guards, [GUARD, other]);
  });

  it('counts as stalled while a read waits past a few milliseconds, and moves on once it completes', async () => {
    const { backend } = setup;
    let reply: (() => void) | undefined;
    backend.onMessage = (message, socket) => {
      if (message.type === 'S') reply = () => socket.write(liveReadReplies({ rows: [['late']] }));
    };
    const live = await open();
    const read = live.read(GUARD, 'SELECT 1', []);
    assert.equal(live.stalled, false, 'just sent');
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(live.stalled, true);
    reply?.();
    assert.deepEqual(await read, [['late']]);
    assert.equal(live.stalled, false, 'nothing in flight');
  });

  it('a read the server refuses rejects with its SQLSTATE; the next read on the connection still succeeds', async () => {
    const { backend } = setup;
    answerReads(backend, (read) =>
      read === 1
        ? { error: errorResponse('22P02', 'invalid input syntax for type integer') }
        : { rows: [['ok']] },
    );
    const live = await open();
    const refused = live.read(GUARD, 'SELECT 1', ['nope']);
    const next = live.read(GUARD, 'SELECT 1', ['1']);
    await assert.rejects(refused, (error: Error) => {
      assert.equal((error as Error & { code: string }).code, '22P02');
      assert.equal(classifyPgError(error), 'invalid_input');
      return true;
    });
    assert.deepEqual(await next, [['ok']]);
    assert.equal(live.usable, true);
  });

  it('a connection lost mid-read fails every read in flight as unavailable, and takes no more', async () => {
    const { backend } = setup;
    backend.onMessage = (message, socket) => {
      if (message.type === 'S') socket.destroy();
    };
    const live = await open();
    const reads = [live.read(GUARD, 'SELECT 1', []), live.read(GUARD, 'SELECT 2', [])];
    for (const read of reads) {
      await assert.rejects(read, (error: Error) => classifyPgError(error) === 'unavailable');
    }
    assert.equal(live.usable, false);
    await assert.rejects(
      live.read(GUARD, 'SELECT 3', []),
      (error: Error) => classifyPgError(error) === 'unavailable',
    );
  });

  it('reports a connection the server drops while idle, and not one it closes itself', async () => {
    const { backend } = setup;
    const lost: unknown[] = [];
    const dropped = await openLiveConnection({ connectionString: backend.url }, 5000, (error) =>
      lost.push(error),
    );
    (backend.sockets.at(-1) as Socket).destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(lost.length, 1);
    assert.equal(classifyPgError(lost[0]), 'unavailable');
    assert.equal(dropped.usable, false);
    const closed = await openLiveConnection({ connectionString: backend.url }, 5000, (error) =>
      lost.push(error),
    );
    await closed.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(lost.length, 1, 'closing it here is not a loss');
  });

  it('a server that stops answering: the client-side timeout fails the read as a timeout and drops the connection', async () => {
    const live = await open(150);
    await assert.rejects(live.read(GUARD, 'SELECT pg_sleep(60)', []), (error: Error) => {
      assert.equal(classifyPgError(error), 'timeout');
      return true;
    });
    assert.equal(live.usable, false);
  });

  it('a read waiting behind slower ones is timed from when the server reaches it, not from when it was sent', async () => {
    const { backend } = setup;
    // The server answers one batch every 200 ms, in order; each takes 200 ms, under the 300 ms timeout, although
    // the third was sent 600 ms before its answer.
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      const read = ++syncs;
      setTimeout(() => socket.write(liveReadReplies({ rows: [[`r${read}`]] })), read * 200);
    };
    const live = await open(300);
    const reads: Promise<(string | null)[][]>[] = [];
    for (const read of [1, 2, 3]) {
      reads.push(live.read(GUARD, 'SELECT $1', [read]));
      await nextTurn();
    }
    assert.deepEqual(await Promise.all(reads), [[['r1']], [['r2']], [['r3']]]);
    assert.equal(live.usable, true);
  });

  it('each read of a batch is timed from when the read before it completed', async () => {
    const { backend } = setup;
    // One batch of three reads whose SELECTs take 200 ms each: 600 ms for the batch, under 300 ms for each.
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      socket.write(Buffer.concat([backendMessage('1'), backendMessage('2'), commandComplete('SELECT 1')]));
      for (const read of [1, 2, 3]) {
        setTimeout(() => {
          socket.write(
            Buffer.concat([
              backendMessage('1'),
              backendMessage('2'),
              dataRowMessage([`r${read}`]),
              commandComplete('SELECT 1'),
              ...(read === 3 ? [readyForQuery('I')] : []),
            ]),
          );
        }, read * 200);
      }
    };
    const live = await open(300);
    const reads = [1, 2, 3].map((read) => live.read(GUARD, 'SELECT $1', [read]));
    assert.deepEqual(await Promise.all(reads), [[['r1']], [['r2']], [['r3']]]);
    assert.equal(live.usable, true);
  });

  it('a read the server refuses inside a batch fails alone: the reads it skipped are sent again and answered', async () => {
    const { backend } = setup;
    answerReads(backend, (read) =>
      read === 2
        ? { error: errorResponse('22P02', 'invalid input syntax for type integer') }
        : { rows: [[`r${read}`]] },
    );
    const live = await open();
    const reads = ['1', 'nope', '3', '4'].map((value) => live.read(GUARD, 'SELECT $1::int', [value]));
    assert.deepEqual(await reads[0], [['r1']]);
    await assert.rejects(
      reads[1] as Promise<unknown>,
      (error: Error) => classifyPgError(error) === 'invalid_input',
    );
    assert.deepEqual(await reads[2], [['r3']]);
    assert.deepEqual(await reads[3], [['r4']]);
    const syncs = backend.received.filter((message) => message.type === 'S').length;
    assert.equal(syncs, 2, 'the two reads the error skipped went out again in one batch');
    const executes = backend.received.filter((message) => message.type === 'E').length;
    assert.equal(executes, 1 + 4 + 1 + 2, 'each batch: the guard, then its reads');
    assert.equal(live.usable, true);
    assert.equal(live.inFlight, 0);
  });

  it('a read that fails after sending rows gets none of them, nor does a read after it: each gets its own answer', async () => {
    const { backend } = setup;
    const parsedSelect = (...rows: string[][]) => [
      backendMessage('1'),
      backendMessage('2'),
      ...rows.map(dataRowMessage),
      commandComplete(`SELECT ${rows.length}`),
    ];
    // The first batch: `a` answers, `boom` sends two rows and then fails (division by zero while it runs), so the
    // server skips `c` (and its twin) to the Sync. The second batch, pipelined behind it, arrives in the same chunk.
    const first = Buffer.concat([
      ...parsedSelect(['on']),
      ...parsedSelect(['a1']),
      ...parsedSelect(['boom1'], ['boom2']).slice(0, 4),
      errorResponse('22012', 'division by zero'),
      readyForQuery('I'),
    ]);
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      syncs += 1;
      if (syncs === 2) {
        socket.write(Buffer.concat([first, liveBatchReplies(backend.batch, () => ({ rows: [['d1']] }))]));
      } else if (syncs === 3) {
        socket.write(liveBatchReplies(backend.batch, () => ({ rows: [['c1']] })));
      }
    };
    const live = await open();
    const read = (value: string) => live.read(GUARD, 'SELECT $1::text', [value]);
    const batched = [read('a'), read('boom'), read('c'), read('c')];
    await nextTurn();
    const behind = read('d');
    assert.deepEqual(await batched[0], [['a1']]);
    await assert.rejects(batched[1] as Promise<unknown>, (error: Error & { code?: string }) => {
      assert.equal(error.code, '22012');
      assert.equal(classifyPgError(error), 'failed');
      return true;
    });
    assert.deepEqual(await behind, [['d1']]);
    assert.deepEqual(await Promise.all(batched.slice(2)), [[['c1']], [['c1']]]);
    assert.equal(syncs, 3, 'the skipped read and its twin went out again once, in a batch of their own');
    assert.equal(live.usable, true);
    assert.equal(live.inFlight, 0);
  });

  it('a guard the server refuses fails every read of its batch, and the next batch runs', async () => {
    const { backend } = setup;
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      socket.write(
        ++syncs === 1
          ? Buffer.concat([
              backendMessage('1'),
              errorResponse('25001', 'cannot set transaction read-only'),
              readyForQuery('I'),
            ])
          : liveBatchReplies(backend.batch, () => ({ rows: [['ok']] })),
      );
    };
    const live = await open();
    const refused = [live.read(GUARD, 'SELECT 1', []), live.read(GUARD, 'SELECT 2', [])];
    for (const read of refused) {
      await assert.rejects(read, (error: Error) => (error as Error & { code?: string }).code === '25001');
    }
    assert.deepEqual(await live.read(GUARD, 'SELECT 3', []), [['ok']]);
  });

  it('a read that leaves the session inside a transaction answers; the reads behind it fail, and none follow', async () => {
    const { backend } = setup;
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S' || ++syncs > 1) return;
      const replies = liveReadReplies({ rows: [['1']] });
      // The final ReadyForQuery says "in a transaction" instead of idle.
      socket.write(Buffer.concat([replies.subarray(0, replies.length - 6), readyForQuery('T')]));
    };
    const live = await open();
    const first = live.read(GUARD, 'SELECT 1', []);
    await nextTurn();
    const behind = live.read(GUARD, 'SELECT 2', []);
    assert.deepEqual(await first, [['1']]);
    await assert.rejects(behind, (error: Error) => classifyPgError(error) === 'unavailable');
    assert.equal(live.usable, false);
    assert.equal(live.inFlight, 0);
  });

  it("a batch during which the session's client_encoding left UTF8 fails whole; the reads behind it fail, and none follow", async () => {
    const { backend } = setup;
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      // PostgreSQL reports a session setting changed during a batch (a view calling a function that runs
      // set_config('client_encoding', 'LATIN1', false)) just before the batch's ReadyForQuery.
      const status = backendMessage('S', Buffer.from('client_encoding\0LATIN1\0'));
      const replies = liveBatchReplies(backend.batch, () => ({ rows: [['caf\u00e9']] }));
      const end = replies.length - 6;
      socket.write(
        ++syncs === 1
          ? Buffer.concat([replies.subarray(0, end), status, replies.subarray(end)])
          : liveReadReplies({ rows: [['2']] }),
      );
    };
    const live = await open();
    const batch = [live.read(GUARD, 'SELECT 1', []), live.read(GUARD, 'SELECT 1', [])];
    await nextTurn();
    const behind = live.read(GUARD, 'SELECT 2', []);
    for (const read of batch)
      await assert.rejects(read, (error: Error) => classifyPgError(error) === 'failed');
    await assert.rejects(behind, (error: Error) => classifyPgError(error) === 'unavailable');
    assert.equal(live.usable, false);
  });

  it('other reported settings (a time zone a read set for itself) leave the connection in use', async () => {
    const { backend } = setup;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      const status = backendMessage('S', Buffer.from('TimeZone\0UTC\0'));
      const replies = liveReadReplies({ rows: [['1']] });
      const end = replies.length - 6;
      socket.write(Buffer.concat([replies.subarray(0, end), status, replies.subarray(end)]));
    };
    const live = await open();
    assert.deepEqual(await live.read(GUARD, 'SELECT 1', []), [['1']]);
    assert.deepEqual(await live.read(GUARD, 'SELECT 1', []), [['1']]);
    assert.equal(live.usable, true);
  });

  it('reads through TLS when the URL asks for it, verifying the server against the given CA', async () => {
    const backend = await setup.startTlsBackend();
    backend.onMessage = (message, socket) => {
      if (message.type === 'S') socket.write(liveReadReplies({ rows: [['secret', 'row']] }));
    };
    const url = `${backend.url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(TEST_CA_PATH)}`;
    const connection = await open(5000, url);
    assert.deepEqual(await connection.read(GUARD, 'SELECT a, b FROM t', []), [['secret', 'row']]);
    const served = backend.sockets.at(-1) as Socket & { encrypted?: boolean };
    assert.equal(served.encrypted, true, 'the read went over the TLS socket');
  });

  it('refuses a TLS server it cannot verify: the connection fails as unavailable', async () => {
    const backend = await setup.startTlsBackend();
    await assert.rejects(
      openLiveConnection({ connectionString: `${backend.url}?sslmode=verify-full` }, 5000),
      (error: Error) => classifyPgError(error) === 'unavailable',
    );
  });
});
