// The log of a relay whose database stays away at start: each table retried every few seconds is said to wait
// once, then at most once a minute with the attempts left out, not at every attempt, however long the outage.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { capturedLog } from '../helpers/captured-log.ts';
import { eventually, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, peopleSchema, postgresSource } from './postgres-fixture.ts';

const DATASETS = `  - id: registry
    title: Registry
    tables:
      - id: people_live
        ${postgresSource({ table: 'people' }, 'connect_timeout: 1s')}
        materialization: live${peopleSchema()}
    entities:
      - { name: people_live, table: people_live, ${ACCESS} }`;

describe('PostgreSQL unavailable at start, in the log', () => {
  // A server that ends every connection at once: a database that cannot be used, and a count of the attempts.
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('says a table waits once, then once a minute with the attempts left out', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const log = capturedLog('warn');
    const relay = await startPostgresRelay(DATASETS, `postgres://ambit@127.0.0.1:${port}/registry`, {
      waitForLoad: false,
      sourceRetryMs: 10,
      clock,
      logger: log.logger,
    });
    const waiting = () =>
      log.records().filter((record) => record.msg === 'waiting for the database of a table');
    try {
      await eventually(async () => connections >= 10, 'ten attempts to reach the database');
      assert.equal(waiting().length, 1, 'one line for the attempts of the first minute');
      assert.equal(waiting()[0]?.table_id, 'people_live');
      assert.equal(waiting()[0]?.suppressed, undefined);
      assert.equal((await relay.get('/ready')).json().waiting_count, 1);
      clock.advance(60_000);
      await eventually(async () => waiting().length === 2, 'a line once a minute has passed');
      assert.ok(Number(waiting()[1]?.suppressed) >= 8, JSON.stringify(waiting()[1]));
    } finally {
      await relay.close();
    }
  });
});
