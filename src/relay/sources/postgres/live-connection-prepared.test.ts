// Prepared statements on a live connection: prepared once, failed Parses, shared or stale, at most 100.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  answerReads,
  errorResponse,
  liveBatchReplies,
  liveReadReplies,
} from '../../../../test/helpers/fake-postgres-backend.ts';
import { GUARD, useFakeBackend } from './live-connection-test-support.ts';
import { preparedStatementTrouble } from './prepared-trouble.ts';
import { classifyPgError } from './read-only-session.ts';

describe('a live connection', () => {
  const setup = useFakeBackend();
  const { open } = setup;

  /** The statement a Parse names and the statement a Bind binds (both start with a C string). */
  const statementName = (body: Buffer) => body.toString('utf8', 0, body.indexOf(0));
  const bindName = (body: Buffer) => body.toString('utf8', 1, body.indexOf(0, 1));
  /** The Parse messages received for SELECTs (not for the guard). */
  const selectParses = () =>
    setup.backend.received.filter(
      (message) => message.type === 'P' && !message.body.includes(Buffer.from('transaction_read_only')),
    );

  it('prepares a SELECT once: later reads of the same SQL only bind it, other SQL gets its own statement', async () => {
    const { backend } = setup;
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
    // The guard is parsed unnamed by every read: a view could replace a prepared one (live-connection.ts).
    assert.deepEqual(
      parses.map((message) => statementName(message.body) === ''),
      [true, false, true, true, false],
      'one Parse per distinct SELECT, the guard on every read',
    );
    const [, first, , , other] = parses.map((message) => statementName(message.body));
    assert.match(first as string, /^ambit_[0-9a-f]{8}_\d+$/);
    assert.notEqual(first, other);
    assert.deepEqual(
      binds.map((message) => bindName(message.body)),
      ['', first, '', first, '', other],
    );
    assert.equal(live.usable, true);
  });

  it('without prepare, every read parses the unnamed statement', async () => {
    const { backend } = setup;
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

  it('a Parse that fails fails its read alone: the reads it skipped prepare afresh, a batch already sent runs unnamed', async () => {
    const { backend } = setup;
    const labels = ['c', 'b', 'd'];
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      const first = labels.length === 3 && backend.batchExecutes === 3;
      socket.write(
        liveBatchReplies(backend.batch, () =>
          first
            ? { error: errorResponse('42703', 'column "a" does not exist'), failedParse: true }
            : { rows: [[labels.shift() ?? '?']] },
        ),
      );
    };
    const live = await open();
    // Values that differ: identical reads of one turn would be one read (pending-read.ts).
    const sql = 'SELECT a FROM t WHERE a = $1';
    const failing = live.read(GUARD, sql, ['1'], true);
    const skipped = live.read(GUARD, sql, ['2'], true);
    await new Promise((resolve) => setImmediate(resolve));
    // Sent before the first batch is answered: the statement it prepares is not confirmed yet.
    const meanwhile = live.read(GUARD, sql, ['3'], true);
    await assert.rejects(failing, (error: Error & { code?: string }) => {
      assert.equal(error.code, '42703');
      assert.equal(classifyPgError(error), 'failed');
      return true;
    });
    assert.deepEqual(await meanwhile, [['c']]);
    assert.deepEqual(await skipped, [['b']]);
    assert.equal(live.usable, true, 'a failed Parse is the statement’s trouble, not the connection’s');
    assert.deepEqual(await live.read(GUARD, sql, ['4'], true), [['d']]);
    assert.deepEqual(
      backend.received.map((message) => message.type).join(''),
      // Each batch parses the guard (unnamed); in the first, the second read binds what the first prepares.
      'PBEPBEBES' + 'PBEPBES' + 'PBEPBES' + 'PBEBES',
    );
    const names = selectParses().map((message) => statementName(message.body));
    assert.equal(names[1], '', 'the batch sent meanwhile runs the SELECT unnamed');
    assert.match(names[2] as string, /^ambit_/);
    assert.notEqual(names[0], names[2], 'prepared again under a new name');
  });

  it('a read refused after its Parse succeeded keeps the statement prepared', async () => {
    const { backend } = setup;
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
      const { backend } = setup;
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
      const sql = 'SELECT a FROM t WHERE a = $1';
      assert.deepEqual(await live.read(GUARD, sql, ['1'], true), [['1']]);
      const troubled = live.read(GUARD, sql, ['2'], true);
      const behind = live.read(GUARD, sql, ['3'], true);
      await assert.rejects(troubled, (error: Error) => preparedStatementTrouble(error) === trouble);
      assert.deepEqual(await behind, [['3']], 'a read already sent still completes');
      assert.equal(live.usable, false, 'new reads go to another connection');
      assert.equal(preparedStatementTrouble(Object.assign(new Error('x'), { code: '22P02' })), undefined);
    });
  }

  it('prepares at most 100 statements per connection; further SQL runs unnamed', async () => {
    const { backend } = setup;
    backend.onMessage = (message, socket) => {
      if (message.type === 'S') socket.write(liveBatchReplies(backend.batch, () => ({ rows: [] })));
    };
    const live = await open();
    await Promise.all(
      Array.from({ length: 102 }, (_, index) => live.read(GUARD, `SELECT ${index}`, [], true)),
    );
    const names = selectParses().map((message) => statementName(message.body));
    assert.equal(names.length, 102);
    assert.equal(new Set(names.slice(0, 100)).size, 100);
    assert.deepEqual(names.slice(100), ['', '']);
  });
});
