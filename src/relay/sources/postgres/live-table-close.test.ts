// Closing a live table while one of its reads still runs in the database (a request that was answered 504, or
// cut at the end of a shutdown's drain): nothing waits for it any more, so its statement is cancelled and its
// connection closed, rather than holding the process and a backend until the statement's own time limit.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  type FakeBackend,
  liveReadReplies,
  startFakeBackend,
} from '../../../../test/helpers/fake-postgres-backend.ts';
import type { Logger } from '../../../platform/log.ts';
import { AS_IS, itemsTable, PAGE } from './live-connection-test-support.ts';
import { createLiveTable } from './live-table.ts';

const logger = { warn: () => {}, info: () => {}, debug: () => {}, error: () => {} } as unknown as Logger;

describe('closing a live table', () => {
  let backend: FakeBackend | undefined;
  afterEach(async () => {
    await backend?.close();
  });

  it('cancels a read still running in the database and closes its connection', {
    timeout: 10_000,
  }, async () => {
    backend = await startFakeBackend({ backendKey: { processID: 4242, secretKey: 987_654_321 } });
    const server = backend;
    // The server never answers the read: it waits for a lock, under a long query_timeout.
    let reached = false;
    server.onMessage = (message) => {
      if (message.type === 'S') reached = true;
    };
    const live = createLiveTable(itemsTable({ query_timeout: '1h', connect_timeout: '2s' }), server.url, {
      datasetId: 'registry',
      logger,
      now: Date.now,
    });
    const read = live.readPage(PAGE, AS_IS);
    read.catch(() => {});
    while (!reached) await new Promise((resolve) => setTimeout(resolve, 10));

    await live.close();
    await assert.rejects(read);
    assert.equal(server.cancels.length, 1, 'the statement was cancelled');
    assert.equal(server.cancels[0]?.processID, 4242);
    assert.equal(server.cancels[0]?.openSessions, 1, "sent while the read's connection was still open");
    while (server.sockets.some((socket) => !socket.destroyed)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });

  it('closes an idle connection without a cancel', { timeout: 10_000 }, async () => {
    backend = await startFakeBackend({ backendKey: { processID: 4242, secretKey: 987_654_321 } });
    const server = backend;
    // The read is answered: its connection stays open in the pool, idle.
    server.onMessage = (message, socket) => {
      if (message.type === 'S') socket.write(liveReadReplies({ rows: [['a']], parses: server.readParses }));
    };
    const live = createLiveTable(itemsTable({ connect_timeout: '2s' }), server.url, {
      datasetId: 'registry',
      logger,
      now: Date.now,
    });
    assert.deepEqual((await live.readPage(PAGE, AS_IS)).rows, [['a']]);
    assert.equal(server.sockets.length, 1);
    assert.equal(server.sockets[0]?.destroyed, false, 'the connection is kept open while idle');

    await live.close();
    while (server.sockets.some((socket) => !socket.destroyed)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(server.cancels.length, 0);
  });
});
