// While a live table's database is away, every read fails the same way: the operator is told once, then at most
// once per interval with the count left out, rather than once per request (a log line per read during an outage).
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import {
  answerReads,
  errorResponse,
  type FakeBackend,
  startFakeBackend,
} from '../../../../test/helpers/fake-postgres-backend.ts';
import type { Logger } from '../../../platform/log.ts';
import { AS_IS, itemsTable, PAGE } from './live-connection-test-support.ts';
import { createLiveTable, type LiveTable } from './live-table.ts';

/** A loopback port nothing listens on: connecting to it is refused, as to a stopped server. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `postgres://reader@127.0.0.1:${port}/registry`;
}

describe('live read failures while the database is away', () => {
  let live: LiveTable | undefined;
  let backend: FakeBackend | undefined;
  afterEach(async () => {
    await live?.close();
    live = undefined;
    await backend?.close();
    backend = undefined;
  });

  it('a repeated failure is logged once, then again after the interval with how many were left out', async () => {
    const lines: { message: string; fields: Record<string, unknown> }[] = [];
    const logger = {
      warn: (fields: Record<string, unknown>, message: string) => lines.push({ message, fields }),
      debug: () => {},
    } as unknown as Logger;
    let now = 1_000_000;
    live = createLiveTable(itemsTable(), await refusedUrl(), {
      datasetId: 'registry',
      logger,
      now: () => now,
    });
    for (let read = 0; read < 5; read++) {
      await assert.rejects(live.readPage(PAGE, AS_IS), { code: 'datasource.unavailable' });
    }
    assert.deepEqual(
      lines.map((line) => line.message),
      ['live read failed'],
    );
    assert.equal(lines[0]?.fields.reason, 'ECONNREFUSED');

    now += 60_000;
    await assert.rejects(live.readPage(PAGE, AS_IS), { code: 'datasource.unavailable' });
    assert.equal(lines.length, 2);
    assert.equal(lines[1]?.message, 'live read failed');
    assert.equal(lines[1]?.fields.reason, 'ECONNREFUSED');
    assert.equal(lines[1]?.fields.suppressed, 4);
  });

  it('the first read answered after failures is logged once, and a failure after it at once again', async () => {
    const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    const logger = {
      warn: (fields: Record<string, unknown>, message: string) =>
        lines.push({ level: 'warn', message, fields }),
      info: (fields: Record<string, unknown>, message: string) =>
        lines.push({ level: 'info', message, fields }),
      debug: () => {},
    } as unknown as Logger;
    backend = await startFakeBackend();
    // Reads 1 to 3 and 5 fail inside the database; read 4 is answered.
    answerReads(backend, (read) =>
      read === 4 ? { rows: [['a']] } : { error: errorResponse('XX000', 'could not read block') },
    );
    live = createLiveTable(itemsTable(), backend.url, {
      datasetId: 'registry',
      logger,
      now: () => 1_000_000,
    });
    for (let read = 0; read < 3; read++) await assert.rejects(live.readPage(PAGE, AS_IS));
    assert.deepEqual((await live.readPage(PAGE, AS_IS)).rows, [['a']]);
    await assert.rejects(live.readPage(PAGE, AS_IS));
    assert.deepEqual(
      lines.map(({ level, message, fields }) => [level, message, fields.table_id, fields.failed_reads]),
      [
        ['warn', 'live read failed', 'items', undefined],
        ['info', 'live table answering again', 'items', 3],
        ['warn', 'live read failed', 'items', undefined],
      ],
    );
  });
});
