// A live table's reads against a scripted server that behaves like a transaction pooler or a changed table:
// a prepared statement that goes missing or stale is read again, never answered as an error.
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
} from '../../../../test/helpers/fake-postgres-backend.ts';
import type { Logger } from '../../../platform/log.ts';
import type { CatalogField } from '../../catalog/catalog.ts';
import { liveLayout, liveRowJson } from '../../query/render-live-rows.ts';
import { AS_IS, itemsTable, PAGE } from './live-connection-test-support.ts';
import { createLiveTable, type LiveRow, type LiveTable } from './live-table.ts';

describe('a live table over a server that does not keep its prepared statements', () => {
  let backend: FakeBackend;
  let live: LiveTable | undefined;
  const warnings: string[] = [];
  const warned: Record<string, unknown>[] = [];
  const logger = {
    warn: (fields: Record<string, unknown>, message: string) => {
      warnings.push(message);
      warned.push(fields);
    },
  } as unknown as Logger;
  /** Statement names of the Parse messages received for SELECTs (not for the guard), in order. */
  const parsed = () =>
    backend.received
      .filter((message) => message.type === 'P' && message.body.includes(Buffer.from('"items"')))
      .map((message) => message.body.toString('utf8', 0, message.body.indexOf(0)));

  beforeEach(async () => {
    warnings.length = 0;
    warned.length = 0;
    backend = await startFakeBackend();
  });
  afterEach(async () => {
    await live?.close();
    live = undefined;
    await backend.close();
  });

  /**
   * Answers each read; a read that binds a SELECT it did not parse gets `unparsedError` (a pooler's answer). The
   * guard is parsed by every read.
   */
  function serve(unparsedError: Buffer): void {
    let sawParse = false;
    let rows = 0;
    backend.onMessage = (message, socket) => {
      if (message.type === 'P' && message.body.includes(Buffer.from('"items"'))) sawParse = true;
      if (message.type !== 'S') return;
      socket.write(
        sawParse
          ? liveReadReplies({ rows: [[`row-${++rows}`]], parses: backend.readParses })
          : liveReadReplies({ error: unparsedError, parses: backend.readParses }),
      );
      sawParse = false;
    };
  }

  it('a statement name already taken (a session shared with another client): the read is answered unprepared', async () => {
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      // The first read's Parse meets a statement of the same name left by another client of the session.
      socket.write(
        ++syncs === 1
          ? liveReadReplies({
              error: errorResponse('42P05', 'prepared statement already exists'),
              parses: backend.readParses,
              failedParse: true,
            })
          : liveReadReplies({ rows: [['row']], parses: backend.readParses }),
      );
    };
    live = createLiveTable(itemsTable(), backend.url, { datasetId: 'registry', logger, now: Date.now });
    assert.deepEqual((await live.readPage(PAGE, AS_IS)).rows, [['row']]);
    assert.equal(parsed()[1], '', 'read again unprepared');
    assert.equal(warnings.length, 1);
  });

  it('a statement gone (transaction pooler): the read is answered unprepared, later reads stay unprepared, one warning', async () => {
    serve(errorResponse('26000', 'prepared statement does not exist'));
    live = createLiveTable(itemsTable(), backend.url, { datasetId: 'registry', logger, now: Date.now });
    assert.deepEqual((await live.readPage(PAGE, AS_IS)).rows, [['row-1']]);
    assert.deepEqual(
      (await live.readPage(PAGE, AS_IS)).rows,
      [['row-2']],
      'read again after the pooler lost it',
    );
    assert.deepEqual((await live.readPage(PAGE, AS_IS)).rows, [['row-3']]);
    const names = parsed();
    assert.match(names[0] as string, /^ambit_[0-9a-f]{8}_\d+$/);
    assert.deepEqual(names.slice(1), ['', ''], 'prepared once, then unnamed statements only');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] as string, /does not keep prepared statements/);
  });

  it('a statement gone stale (the table changed): the read is answered, later reads prepare afresh', async () => {
    serve(errorResponse('0A000', 'cached plan must not change result type'));
    live = createLiveTable(itemsTable(), backend.url, { datasetId: 'registry', logger, now: Date.now });
    assert.deepEqual((await live.readPage(PAGE, AS_IS)).rows, [['row-1']]);
    assert.deepEqual((await live.readPage(PAGE, AS_IS)).rows, [['row-2']]);
    assert.deepEqual((await live.readPage(PAGE, AS_IS)).rows, [['row-3']]);
    const names = parsed();
    assert.equal(names.length, 3);
    assert.equal(names[1], '', 'the retry runs unprepared');
    assert.match(names[2] as string, /^ambit_[0-9a-f]{8}_\d+$/, 'a fresh connection prepares again');
    assert.equal(backend.sockets.length, 2, 'the connection with the stale statement was replaced');
    assert.deepEqual(warnings, []);
  });

  it('live_prepared_statements: false never prepares', async () => {
    serve(errorResponse('26000', 'unexpected'));
    live = createLiveTable(itemsTable({ live_prepared_statements: false }), backend.url, {
      datasetId: 'registry',
      logger,
      now: Date.now,
    });
    await live.readPage(PAGE, AS_IS);
    await live.readPage(PAGE, AS_IS);
    assert.deepEqual(parsed(), ['', '']);
  });

  it('any other error of a prepared read is answered as it is, without a second read', async () => {
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      syncs += 1;
      socket.write(liveReadReplies({ error: errorResponse('42501', 'permission denied for table items') }));
    };
    live = createLiveTable(itemsTable(), backend.url, { datasetId: 'registry', logger, now: Date.now });
    await assert.rejects(live.readPage(PAGE, AS_IS));
    assert.equal(syncs, 1);
  });

  it("a data exception raised while the SELECT runs (after its Bind) is the data's, not the filter's: 502 and logged", async () => {
    let syncs = 0;
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      const error = errorResponse('22003', 'value "5000000000" is out of range for type integer');
      socket.write(
        ++syncs === 1
          ? // Refused at the SELECT's Bind: a parameter value (a filter) the column's type cannot take.
            liveReadReplies({ error, parses: backend.readParses })
          : // Refused once the SELECT was bound (BindComplete) and running: a row, or what a view computes.
            Buffer.concat([
              ...Array.from({ length: backend.readParses }, () => backendMessage('1')),
              backendMessage('2'),
              dataRowMessage(['on', '30000']),
              commandComplete('SELECT 1'),
              backendMessage('2'),
              error,
              readyForQuery('I'),
            ]),
      );
    };
    live = createLiveTable(itemsTable(), backend.url, { datasetId: 'registry', logger, now: Date.now });
    await assert.rejects(live.readPage(PAGE, AS_IS), { code: 'filter.invalid_value' });
    assert.deepEqual(warnings, []);
    await assert.rejects(live.readPage(PAGE, AS_IS), { code: 'datasource.query_failed' });
    assert.deepEqual(warnings, ['live read failed']);
    // Two datasets may name a table alike: the dataset says which one failed.
    assert.equal(warned[0]?.dataset_id, 'registry');
    assert.equal(warned[0]?.table_id, 'items');
  });

  it("a filter character the database's encoding lacks (LATIN1 and an emoji) is the caller's: 400, not logged", async () => {
    backend.onMessage = (message, socket) => {
      if (message.type !== 'S') return;
      // What a LATIN1 database answers at the SELECT's Bind when a text parameter holds a character it cannot store.
      const error = errorResponse(
        '22P05',
        'character with byte sequence 0xf0 0x9f 0x98 0x80 in encoding "UTF8" has no equivalent in encoding "LATIN1"',
      );
      socket.write(liveReadReplies({ error, parses: backend.readParses }));
    };
    live = createLiveTable(itemsTable(), backend.url, { datasetId: 'registry', logger, now: Date.now });
    await assert.rejects(live.readPage(PAGE, AS_IS), { code: 'filter.invalid_value' });
    assert.deepEqual(warnings, []);
  });

  it('a row that does not fit the schema: 502 row_invalid, counted as row_invalid, one warning naming the column, not the value', async () => {
    // The public field `item_id` is served from the column `id`, declared an integer.
    const field = { name: 'item_id', column: 'id', type: 'integer', nullable: false } as CatalogField;
    const layout = liveLayout([field], field);
    const render = (row: LiveRow) => liveRowJson(layout, row);
    answerReads(backend, (read) => ({ rows: read === 1 ? [['secret-1'], ['secret-2']] : [['7']] }));
    const scans: string[] = [];
    live = createLiveTable(itemsTable(), backend.url, {
      datasetId: 'registry',
      logger,
      now: Date.now,
      onScan: (scan) => scans.push(scan.outcome),
    });
    await assert.rejects(live.readPage(PAGE, render), { code: 'datasource.row_invalid', status: 502 });
    assert.deepEqual(scans, ['row_invalid']);
    assert.deepEqual(warnings, ['live read: a row does not fit the declared schema']);
    assert.equal(warned[0]?.dataset_id, 'registry');
    assert.equal(warned[0]?.table_id, 'items');
    assert.equal(warned[0]?.column, 'id');
    assert.equal(warned[0]?.field, 'item_id');
    assert.doesNotMatch(JSON.stringify(warned), /secret/);
    assert.deepEqual((await live.readPage(PAGE, render)).items, ['{"item_id":7}']);
    assert.deepEqual(scans, ['row_invalid', 'ok']);
    assert.equal(warnings.length, 1, 'nothing logged for a read that succeeds');
  });

  it('reports the wait for a connection and the query time apart: neither holds the other', async () => {
    answerReads(backend, () => ({ rows: [['1']] }));
    // Each reading of the clock is 10 ms after the one before: started, connection acquired, rows rendered.
    let clock = 0;
    const scans: { waitMs: number; durationMs: number }[] = [];
    live = createLiveTable(itemsTable(), backend.url, {
      datasetId: 'registry',
      logger,
      now: () => (clock += 10),
      onScan: (scan) => scans.push({ waitMs: scan.waitMs, durationMs: scan.durationMs }),
    });
    await live.readPage(PAGE, AS_IS);
    assert.deepEqual(scans, [{ waitMs: 10, durationMs: 10 }]);
  });

  it('a read past its time limit whose cancel the database does not confirm is logged, without the cancel key', async () => {
    await backend.close();
    backend = await startFakeBackend({
      backendKey: { processID: 4242, secretKey: 987_654_321 },
      holdCancels: true,
    });
    // The server never answers the read, and keeps the cancel connection open.
    backend.onMessage = () => {};
    live = createLiveTable(itemsTable({ query_timeout: '10ms', connect_timeout: '200ms' }), backend.url, {
      datasetId: 'registry',
      logger,
      now: Date.now,
    });
    await assert.rejects(live.readPage(PAGE, AS_IS), { code: 'datasource.timeout' });
    while (!warnings.some((message) => message.includes('cancel'))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const index = warnings.findIndex((message) => message.includes('cancel'));
    assert.match(warnings[index] as string, /did not confirm the cancel/);
    assert.equal(warned[index]?.dataset_id, 'registry');
    assert.equal(warned[index]?.table_id, 'items');
    assert.equal(warned[index]?.cancel, 'unconfirmed');
    assert.doesNotMatch(JSON.stringify(warned), /987654321|4242/);
  });

  it('a read past its time limit is cancelled before its connection closes: a pooler finds the backend by it', async () => {
    await backend.close();
    backend = await startFakeBackend({ backendKey: { processID: 4242, secretKey: 987_654_321 } });
    // The server never answers the read.
    backend.onMessage = () => {};
    live = createLiveTable(itemsTable({ query_timeout: '10ms', connect_timeout: '2s' }), backend.url, {
      datasetId: 'registry',
      logger,
      now: Date.now,
    });
    await assert.rejects(live.readPage(PAGE, AS_IS), { code: 'datasource.timeout' });
    while (backend.cancels.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(backend.cancels[0]?.openSessions, 1, "the read's connection was still open");
  });

  it('a connection the server drops is logged with its dataset and table', async () => {
    answerReads(backend, () => ({ rows: [['1']] }));
    live = createLiveTable(itemsTable(), backend.url, { datasetId: 'registry', logger, now: Date.now });
    await live.readPage(PAGE, AS_IS);
    (backend.sockets.at(-1) as Socket).destroy();
    while (warnings.length === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, ['live table connection lost']);
    assert.equal(warned[0]?.dataset_id, 'registry');
    assert.equal(warned[0]?.table_id, 'items');
  });
});
