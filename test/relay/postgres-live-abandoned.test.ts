// Live reads whose request was answered while they waited for a pooled connection (the client hung up, or the
// request timed out) are dropped when their turn comes: never sent to the database, counted as `abandoned`.
import assert from 'node:assert/strict';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import { eventually, READER_KEY, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import { ID_AND_LABEL, ITEMS, liveDataset, openLiveTestDatabase } from './postgres-live-fixture.ts';

describe('live PostgreSQL reads nobody waits for any more', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query('CREATE TABLE sleepy (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO sleepy VALUES (1, 'one')");
    await db.query(`CREATE FUNCTION sleepy_check() RETURNS boolean LANGUAGE sql AS $body$
      SELECT pg_sleep(1) IS NOT NULL $body$`);
    await db.query('CREATE VIEW sleepy_view AS SELECT id, label FROM sleepy WHERE sleepy_check()');
  });
  after(() => db.close());

  /** One connection, one read at a time, each read about a second long: later reads wait for the first. */
  async function slowRelay(requestTimeout?: string) {
    const relay = await startPostgresRelay(
      liveDataset('sleepy_view', ID_AND_LABEL, 'live_max_connections: 1, live_pipeline_depth: 1'),
      db.url,
      { admin: true, requestTimeout },
    );
    const scans = async (outcome: string) =>
      new RegExp(`^ambit_relay_datasource_live_scans_total\\{[^}]*outcome="${outcome}"\\} (\\d+)$`, 'm').exec(
        (await relay.admin('GET', '/metrics')).body,
      )?.[1];
    return { relay, scans };
  }

  it('reads whose requests timed out while they waited for the connection are never sent', async () => {
    const { relay, scans } = await slowRelay('300ms');
    try {
      // A record read takes the connection; a page read and another record read wait behind it.
      const answers = await Promise.all([relay.get(`${ITEMS}/1`), relay.get(ITEMS), relay.get(`${ITEMS}/1`)]);
      for (const answer of answers) assertProblem(answer, 504, 'internal.timeout');
      // Decided when the connection frees up, about a second later: the first read ran, the others never left.
      await eventually(async () => (await scans('abandoned')) === '2', 'the waiting reads to be dropped');
      assert.equal(await scans('ok'), '1');
    } finally {
      await relay.close();
    }
  });

  it('a read whose client hung up while it waited for the connection is never sent either', async (t) => {
    // Embedded PGlite runs in this process: its pg_sleep stops the relay's event loop too, which then sees the
    // hang-up only after the connection is free again.
    if (db.kind === 'pglite') return t.skip('needs a database outside this process');
    const { relay, scans } = await slowRelay();
    try {
      await relay.relay.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = relay.relay.app.server.address() as AddressInfo;
      // The first read holds the only connection for about a second; its caller waits for the answer.
      const first = relay.get(`${ITEMS}/1`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The second caller gives up before the connection is free: its socket closes, unanswered.
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`GET ${ITEMS} HTTP/1.1\r\nhost: relay\r\nauthorization: Bearer ${READER_KEY}\r\n\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      assert.deepEqual((await first).json(), { id: 1, label: 'one' });
      await eventually(async () => (await scans('abandoned')) === '1', 'the waiting read to be dropped');
      assert.equal(await scans('ok'), '1');
    } finally {
      await relay.close();
    }
  });
});
