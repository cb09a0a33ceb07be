import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  answerReads,
  backendMessage,
  commandComplete,
  dataRowMessage,
  errorResponse,
  type FakeBackend,
  liveReadReplies,
  readyForQuery,
  startFakeBackend,
  TEST_CA_PATH,
} from '../../../../test/helpers/fake-postgres-backend.ts';
import { type LiveConnection, openLiveConnection, preparedStatementTrouble } from './live-connection.ts';
import { classifyPgError } from './read-only-session.ts';

const GUARD = "SELECT set_config('transaction_read_only', 'on', true)";

/** Writes `bytes` one at a time: every message boundary falls inside some chunk. */
async function dribble(socket: Socket, bytes: Buffer): Promise<void> {
  for (const byte of bytes) {
    socket.write(Buffer.from([byte]));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('a live connection', () => {
  let backend: FakeBackend;
  let connection: LiveConnection | undefined;
  beforeEach(async () => {
    backend = await startFakeBackend();
  });
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await backend.close();
  });

  const open = async (timeoutMs = 5000) => {
    connection = await openLiveConnection({ connectionString: backend.url }, timeoutMs);
    return connection;
  };

  it('answers pipelined reads in order, from replies cut at every byte', async () => {
    const replies = [
      liveReadReplies({
        rows: [
          ['1', 'Ada'],
          ['2', null],
        ],
      }),
      liveReadReplies({ rows: [['3', 'Łódź']] }),
    ];
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      // The second read's replies go out once both reads have arrived: the client must tell them apart.
      if (message.type === 'S' && ++syncs === 2) void dribble(socket, Buffer.concat(replies));
    };
    const live = await open();
    const first = live.read(GUARD, 'SELECT a, b FROM t WHERE a = $1', ['x']);
    const second = live.read(GUARD, 'SELECT a, b FROM t WHERE a = $1', ['y']);
    assert.equal(live.inFlight, 2);
    assert.deepEqual(await first, [
      ['1', 'Ada'],
      ['2', null],
    ]);
    assert.deepEqual(await second, [['3', 'Łódź']]);
    assert.equal(live.inFlight, 0);
    assert.equal(live.usable, true);
    assert.deepEqual(
      backend.received.map((message) => message.type).join(''),
      'PBEPBESPBEPBES',
      'each read: the guard and the SELECT parsed, bound and executed, then Sync',
    );
  });

  it('counts as stalled while a read waits past a few milliseconds, and moves on once it completes', async () => {
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
    // The server answers one read every 200 ms, in order; each takes 200 ms, under the 300 ms timeout, although
    // the third was sent 600 ms before its answer.
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      const read = ++syncs;
      setTimeout(() => socket.write(liveReadReplies({ rows: [[`r${read}`]] })), read * 200);
    };
    const live = await open(300);
    const reads = [1, 2, 3].map((read) => live.read(GUARD, 'SELECT $1', [read]));
    assert.deepEqual(await Promise.all(reads), [[['r1']], [['r2']], [['r3']]]);
    assert.equal(live.usable, true);
  });

  const GUARD_REPLIES = Buffer.concat([
    backendMessage('1'),
    backendMessage('1'),
    backendMessage('2'),
    dataRowMessage(['on', '30000']),
    commandComplete('SELECT 1'),
    backendMessage('2'),
  ]);
  const lengthHeader = (type: string, length: number) => {
    const header = Buffer.alloc(5);
    header.write(type, 0);
    header.writeInt32BE(length, 1);
    return header;
  };
  const malformed: [string, Buffer][] = [
    ['a message shorter than its own length field', lengthHeader('D', 2)],
    ['a negative message length', lengthHeader('D', -4)],
    ['a message other than a data row announced past 64 MiB', lengthHeader('C', 0x7fffffff)],
    ['a data row announcing cells it does not carry', backendMessage('D', Buffer.from([0, 3]))],
    [
      'a cell longer than its data row',
      backendMessage(
        'D',
        Buffer.concat([Buffer.from([0, 1]), lengthHeader('x', 1000).subarray(1), Buffer.from('ab')]),
      ),
    ],
    ['a negative cell count', backendMessage('D', Buffer.from([0xff, 0xff]))],
  ];
  for (const [what, reply] of malformed) {
    it(`a reply with ${what} fails the connection's reads as unavailable, and the process carries on`, async () => {
      backend.onMessage = (message, socket) => {
        if (message.type === 'S') socket.write(Buffer.concat([GUARD_REPLIES, reply, readyForQuery('I')]));
      };
      const live = await open();
      await assert.rejects(live.read(GUARD, 'SELECT 1', []), (error: Error) => {
        assert.equal(classifyPgError(error), 'unavailable');
        return true;
      });
      assert.equal(live.usable, false);
    });
  }

  it('an answer past 64 MiB (one row, or rows together) fails its read as refused, not buffered; the connection carries on', async () => {
    const MiB = 1024 * 1024;
    answerReads(backend, (read) => {
      if (read === 1) return { rows: [['x'.repeat(64 * MiB)]] };
      if (read === 2) return { rows: [['y'.repeat(33 * MiB)], ['z'.repeat(33 * MiB)]] };
      return { rows: [['ok']] };
    });
    const live = await open();
    const reads = [1, 2, 3].map((read) => live.read(GUARD, 'SELECT $1', [read]));
    for (const read of reads.slice(0, 2)) {
      await assert.rejects(read, (error: Error) => {
        assert.equal(classifyPgError(error), 'failed');
        assert.match(error.message, /exceeds 64 MiB/);
        return true;
      });
    }
    assert.deepEqual(await reads[2], [['ok']]);
    assert.equal(live.usable, true);
    assert.deepEqual(await live.read(GUARD, 'SELECT 4', []), [['ok']]);
  });

  it('a read that leaves the session inside a transaction answers; the reads behind it fail, and none follow', async () => {
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S' || ++syncs > 1) return;
      const replies = liveReadReplies({ rows: [['1']] });
      // The final ReadyForQuery says "in a transaction" instead of idle.
      socket.write(Buffer.concat([replies.subarray(0, replies.length - 6), readyForQuery('T')]));
    };
    const live = await open();
    const first = live.read(GUARD, 'SELECT 1', []);
    const behind = live.read(GUARD, 'SELECT 2', []);
    assert.deepEqual(await first, [['1']]);
    await assert.rejects(behind, (error: Error) => classifyPgError(error) === 'unavailable');
    assert.equal(live.usable, false);
    assert.equal(live.inFlight, 0);
  });

  /** The statement a Parse names and the statement a Bind binds (both start with a C string). */
  const statementName = (body: Buffer) => body.toString('utf8', 0, body.indexOf(0));
  const bindName = (body: Buffer) => body.toString('utf8', 1, body.indexOf(0, 1));
  /** The Parse messages received for SELECTs (not for the guard). */
  const selectParses = () =>
    backend.received.filter(
      (message) => message.type === 'P' && !message.body.includes(Buffer.from('transaction_read_only')),
    );

  it('prepares a SELECT once: later reads of the same SQL only bind it, other SQL gets its own statement', async () => {
    backend.onMessage = (message, socket) => {
      if (message.type === 'S') socket.write(liveReadReplies({ rows: [['ok']], parses: backend.readParses }));
    };
    const live = await open();
    const sql = 'SELECT a FROM t WHERE a = $1';
    assert.deepEqual(await live.read(GUARD, sql, ['1'], true), [['ok']]);
    assert.deepEqual(await live.read(GUARD, sql, ['2'], true), [['ok']]);
    assert.deepEqual(await live.read(GUARD, 'SELECT b FROM t', [], true), [['ok']]);
    const parses = backend.received.filter((message) => message.type === 'P');
    const binds = backend.received.filter((message) => message.type === 'B');
    assert.equal(parses.length, 3, 'one Parse per distinct SQL, the guard included');
    const [guard, first, other] = parses.map((message) => statementName(message.body));
    assert.match(first as string, /^ambit_[0-9a-f]{8}_\d+$/);
    assert.equal(new Set([guard, first, other]).size, 3);
    assert.deepEqual(
      binds.map((message) => bindName(message.body)),
      [guard, first, guard, first, guard, other],
    );
    assert.equal(live.usable, true);
  });

  it('without prepare, every read parses the unnamed statement', async () => {
    backend.onMessage = (message, socket) => {
      if (message.type === 'S') socket.write(liveReadReplies({ rows: [['ok']], parses: backend.readParses }));
    };
    const live = await open();
    await live.read(GUARD, 'SELECT 1', []);
    await live.read(GUARD, 'SELECT 1', []);
    const parses = backend.received.filter((message) => message.type === 'P');
    assert.deepEqual(
      parses.map((message) => statementName(message.body)),
      ['', '', '', ''],
      'the guard and the SELECT, twice',
    );
  });

  it('a Parse that fails fails the pipelined reads behind it with its own error, and the next read prepares again', async () => {
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      syncs += 1;
      if (syncs === 1) {
        socket.write(
          liveReadReplies({
            error: errorResponse('42703', 'column "a" does not exist'),
            parses: backend.readParses,
            failedParse: true,
          }),
        );
      } else if (syncs === 2) {
        // What a real server answers a Bind of a statement that was never created.
        socket.write(
          liveReadReplies({
            error: errorResponse('26000', 'prepared statement "x" does not exist'),
            parses: backend.readParses,
          }),
        );
      } else {
        socket.write(liveReadReplies({ rows: [['back']], parses: backend.readParses }));
      }
    };
    const live = await open();
    const sql = 'SELECT a FROM t';
    const reads = [live.read(GUARD, sql, [], true), live.read(GUARD, sql, [], true)];
    for (const read of reads) {
      await assert.rejects(read, (error: Error & { code?: string }) => {
        assert.equal(error.code, '42703');
        assert.equal(classifyPgError(error), 'failed');
        return true;
      });
    }
    assert.equal(live.usable, true, 'a failed Parse is the statement’s trouble, not the connection’s');
    assert.deepEqual(await live.read(GUARD, sql, [], true), [['back']]);
    assert.deepEqual(
      backend.received.map((message) => message.type).join(''),
      'PBEPBESBEBESBEPBES',
      'the third read prepares the SELECT again (the guard stays prepared)',
    );
    const parses = selectParses();
    assert.notEqual(statementName(parses[0]?.body as Buffer), statementName(parses[1]?.body as Buffer));
  });

  it('a read refused after its Parse succeeded keeps the statement prepared', async () => {
    answerReads(backend, (read) =>
      read === 1 ? { error: errorResponse('22P02', 'invalid input syntax') } : { rows: [['ok']] },
    );
    const live = await open();
    await assert.rejects(live.read(GUARD, 'SELECT a FROM t WHERE a = $1', ['x'], true));
    assert.deepEqual(await live.read(GUARD, 'SELECT a FROM t WHERE a = $1', ['1'], true), [['ok']]);
    assert.equal(selectParses().length, 1);
    assert.equal(live.usable, true);
  });

  for (const [code, trouble] of [
    ['26000', 'shared'],
    ['42P05', 'shared'],
    ['0A000', 'stale'],
    ['42883', 'stale'],
    ['42804', 'stale'],
  ] as const) {
    it(`a prepared statement the server reports ${trouble} (${code}): the read says so and the connection retires once its reads are done`, async () => {
      let syncs = 0;
      backend.onMessage = (message, socket) => {
        if (message.type !== 'S') return;
        syncs += 1;
        if (syncs === 2) {
          socket.write(liveReadReplies({ error: errorResponse(code, 'the statement'), parses: 0 }));
        } else {
          socket.write(liveReadReplies({ rows: [[String(syncs)]], parses: backend.readParses }));
        }
      };
      const live = await open();
      const sql = 'SELECT a FROM t';
      assert.deepEqual(await live.read(GUARD, sql, [], true), [['1']]);
      const troubled = live.read(GUARD, sql, [], true);
      const behind = live.read(GUARD, sql, [], true);
      await assert.rejects(troubled, (error: Error) => preparedStatementTrouble(error) === trouble);
      assert.deepEqual(await behind, [['3']], 'a read already sent still completes');
      assert.equal(live.usable, false, 'new reads go to another connection');
      assert.equal(preparedStatementTrouble(Object.assign(new Error('x'), { code: '22P02' })), undefined);
    });
  }

  it('prepares at most 100 statements per connection (the guard included); further SQL runs unnamed', async () => {
    backend.onMessage = (message, socket) => {
      if (message.type === 'S') socket.write(liveReadReplies({ rows: [], parses: backend.readParses }));
    };
    const live = await open();
    await Promise.all(
      Array.from({ length: 102 }, (_, index) => live.read(GUARD, `SELECT ${index}`, [], true)),
    );
    const names = selectParses().map((message) => statementName(message.body));
    assert.equal(names.length, 102);
    // The guard holds one of the hundred.
    assert.equal(new Set(names.slice(0, 99)).size, 99);
    assert.deepEqual(names.slice(99), ['', '', '']);
  });

  it('reads through TLS when the URL asks for it, verifying the server against the given CA', async () => {
    await backend.close();
    backend = await startFakeBackend({ tls: true });
    backend.onMessage = (message, socket) => {
      if (message.type === 'S') socket.write(liveReadReplies({ rows: [['secret', 'row']] }));
    };
    const url = `${backend.url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(TEST_CA_PATH)}`;
    connection = await openLiveConnection({ connectionString: url }, 5000);
    assert.deepEqual(await connection.read(GUARD, 'SELECT a, b FROM t', []), [['secret', 'row']]);
    const served = backend.sockets.at(-1) as Socket & { encrypted?: boolean };
    assert.equal(served.encrypted, true, 'the read went over the TLS socket');
  });

  it('refuses a TLS server it cannot verify: the connection fails as unavailable', async () => {
    await backend.close();
    backend = await startFakeBackend({ tls: true });
    await assert.rejects(
      openLiveConnection({ connectionString: `${backend.url}?sslmode=verify-full` }, 5000),
      (error: Error) => classifyPgError(error) === 'unavailable',
    );
  });
});
