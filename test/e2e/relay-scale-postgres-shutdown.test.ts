// Shutting down a relay over PostgreSQL: a live read waiting in the database when SIGTERM arrives still gets its
// whole answer (the database pools close only after the drain), in one process and in a worker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { call, until } from './relay-scale-fixture.ts';
import { EVENT_IDS, RECORDS, usePostgresScale } from './relay-scale-postgres-fixture.ts';

for (const workers of [1, 2]) {
  describe(`graceful shutdown over PostgreSQL (${workers === 1 ? 'one process' : `${workers} workers`})`, () => {
    const scale = usePostgresScale();

    it('lets a live read held up in the database finish, then exits 0', async () => {
      const relay = await scale.serve(['--workers', String(workers)]);
      // A lock the read has to wait for, released only once the relay is draining.
      const locker = new pg.Client({ connectionString: scale.db.url });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
        const answer = call(`${relay.url}${RECORDS('events')}?limit=100`, { as: 'reader' });
        await until(async () => {
          // Asked outside the locking transaction, which would see the activity as it first read it.
          const waiting = await scale.db.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ambit-relay' AND wait_event_type = 'Lock'",
          );
          return waiting.rowCount === 1;
        }, 'the live read waits for the lock');
        relay.signal('SIGTERM');
        await until(() => /draining/.test(relay.output()), 'the relay drains');
        await locker.query('COMMIT');
        const done = await answer;
        assert.equal(done.status, 200, done.body);
        assert.deepEqual(
          JSON.parse(done.body).data.map((row: { id: number }) => row.id),
          EVENT_IDS,
        );
        assert.equal(await relay.exited, 0);
      } finally {
        await locker.end();
      }
    });
  });
}
