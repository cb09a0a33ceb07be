// Shutting down a relay whose database statements outlast the drain: a live read already answered 504 and an admin
// reload (snapshot reads and a live table's probe), all waiting for a lock another session holds, under a
// `query_timeout` far longer than the drain. The reload is answered 503 within the drain, which is logged; the
// process then exits 0, and leaves none of its backends behind in the database.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { it } from 'node:test';
import pg from 'pg';
import { URL_ENV } from '../helpers/postgres-relay.ts';
import { call, serve, until } from './relay-scale-fixture.ts';
import { CURSOR_SECRET, RECORDS, usePostgresScale } from './relay-scale-postgres-fixture.ts';

const scale = usePostgresScale();

const backends = async (where = ''): Promise<number> => {
  const found = await scale.db.query(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ambit-relay' ${where}`,
  );
  return found.rowCount ?? 0;
};

it('exits 0 after the drain and cancels the statements still waiting in the database', {
  timeout: 60_000,
}, async () => {
  // The suite's config, with a short request time-out (the drain lasts twice that) and a long query time-out.
  const first = await scale.serve();
  const configPath = first.child.spawnargs.at(-1) as string;
  await first.stop();
  writeFileSync(
    configPath,
    readFileSync(configPath, 'utf8')
      .replace('cursor_secret_env: CURSOR_SECRET', 'cursor_secret_env: CURSOR_SECRET\n  request_timeout: 1s')
      .replaceAll('source: { type: postgres,', 'source: { type: postgres, query_timeout: 1h,'),
  );
  const relay = await serve({ configPath }, [], { [URL_ENV]: scale.db.url, CURSOR_SECRET });
  const locker = new pg.Client({ connectionString: scale.db.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE events, people IN ACCESS EXCLUSIVE MODE');
    const live = call(`${relay.url}${RECORDS('events')}?limit=100`, { as: 'reader' });
    const reload = call(`${relay.adminUrl}/admin/v1/reload`, { method: 'POST', as: 'operator' }).catch(
      (error: Error) => error,
    );
    // The live read, and the reload's reads of `people`, `people_query` and `events`.
    await until(
      async () => (await backends("AND wait_event_type = 'Lock'")) === 4,
      'the reads wait for the lock',
    );
    assert.equal((await live).status, 504);
    relay.signal('SIGTERM');
    assert.equal(await relay.exited, 0);
    // The reload was still running a request time-out into the stop: it is answered 503 within the drain, and
    // that is said; its statements, still waiting for the lock, are cancelled when the process ends.
    const answered = await reload;
    assert.ok(!(answered instanceof Error), `the reload got no answer: ${String(answered)}`);
    assert.equal(answered.status, 503, answered.body);
    assert.equal(JSON.parse(answered.body).code, 'http.shutting_down');
    assert.match(relay.output(), /admin reloads still running were answered 503 http\.shutting_down/);
    await until(async () => (await backends()) === 0, 'the relay leaves no backend behind');
  } finally {
    relay.signal('SIGKILL');
    await locker.end();
  }
});
