// `npm start` with DATABASE_URL rewrites table ambit_demo.birth_registrations on every start. A start that does not
// go ahead (another demo already runs, or Ctrl-C while it waits for the table) must leave that table as it found it:
// the running demo serves it live.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { BIRTH_ROWS, seedDemoPostgres } from '../../src/cli/demo-postgres.ts';
import { startDemo } from '../helpers/demo-env.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';

/** `ambit demo` over the database at `url`. */
function startDemoOn(url: string, state: string, until: string, env: NodeJS.ProcessEnv = {}) {
  return startDemo(state, until, { DATABASE_URL: url, ...env });
}

/** Resolves once `probe` answers a value (the database is asked again meanwhile). */
async function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const MARK =
  "UPDATE ambit_demo.birth_registrations SET birth_weight_kg = 9.99 WHERE registration_id = 'br-20042'";
const MARKED =
  "SELECT birth_weight_kg::text AS kg FROM ambit_demo.birth_registrations WHERE registration_id = 'br-20042'";

describe('demo with DATABASE_URL, while another demo serves the table', () => {
  let db: TestDatabase;
  let state: string;
  let first: ReturnType<typeof startDemo>;

  before(async () => {
    db = await openTestDatabase();
    state = mkdtempSync(join(tmpdir(), 'ambit-demo-reseed-'));
    first = startDemoOn(db.url, state, 'Press Ctrl+C');
    await first.shown;
    assert.match(first.output.stdout, /vital_events/, first.output.stderr);
  });

  after(async () => {
    if (first.child.exitCode === null) {
      first.child.kill('SIGINT');
      await first.exited;
    }
    await db.close();
    rmSync(state, { recursive: true, force: true });
  });

  it('prints requests for the snapshot and the live entity that work as printed', async () => {
    const printed = first.output.stdout.split('\n').map((line) => line.trim());
    const lines = printed.filter((line) => line.startsWith('curl ') && line.includes('/vital_events/'));
    assert.equal(lines.length, 2, first.output.stdout);
    const answers = [];
    for (const line of lines) {
      const header = /-H "Authorization: ([^"]+)"/.exec(line)?.[1];
      const url = /"(http:\/\/[^"]+)"$/.exec(line)?.[1];
      assert.ok(header && url, line);
      const response = await fetch(url, { headers: { authorization: header } });
      assert.equal(response.status, 200, line);
      answers.push(await response.json());
    }
    const [snapshot, live] = answers as [{ data: { district: string }[] }, { registration_id: string }];
    assert.ok(lines[0]?.includes('/births/records?'), lines[0]);
    assert.ok(snapshot.data.length > 0 && snapshot.data.every((row) => row.district === 'lakeside'));
    assert.ok(lines[1]?.includes('/births_live/records/'), lines[1]);
    assert.equal(live.registration_id, 'br-20042');
  });

  it('a second start over the same state folder stops before it rewrites the table', async () => {
    // A change the running demo shows live (births_live), as a user makes it to try the live entity.
    await db.query(MARK);
    const second = startDemoOn(db.url, state, 'Press Ctrl+C');
    assert.equal(await second.exited, 1);
    assert.match(second.output.stderr, /^is the demo already running\? Its audit files in /);
    assert.equal((await db.query(MARKED)).rows[0]?.kg, '9.99');
  });

  it('a second start on the same relay address stops before it rewrites the table', async () => {
    const relay = /Ambit Relay demo listening on http:\/\/(\S+)/.exec(first.output.stdout)?.[1];
    assert.ok(relay, first.output.stdout);
    await db.query(MARK);
    const other = mkdtempSync(join(tmpdir(), 'ambit-demo-reseed-other-'));
    try {
      const second = startDemoOn(db.url, other, 'Press Ctrl+C', { AMBIT_RELAY_BIND: relay });
      assert.equal(await second.exited, 1);
      assert.equal(
        second.output.stderr,
        `cannot listen on ${relay}: the address is already in use (another process listens there); is the demo ` +
          'already running? Stop it, or move the demo with AMBIT_RELAY_BIND (host:port; port 0 picks a free one)\n',
      );
      assert.equal((await db.query(MARKED)).rows[0]?.kg, '9.99');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('demo with DATABASE_URL stopped while it waits for the table', () => {
  it('leaves the table whole once the session that held it lets go', async (t) => {
    const db = await openTestDatabase();
    const state = mkdtempSync(join(tmpdir(), 'ambit-demo-reseed-stop-'));
    const holder = new pg.Client({ connectionString: db.url });
    try {
      if (db.kind === 'pglite') return t.skip('embedded PGlite serves every client in one session');
      await seedDemoPostgres(db.url);
      // A psql session in the middle of a transaction that read the table: reseeding has to wait for it.
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT count(*) FROM ambit_demo.birth_registrations');
      const demo = startDemoOn(db.url, state, 'Press Ctrl+C');
      const waiting = await waitFor(async () => {
        const { rows } = await db.query(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return rows[0]?.pid as number | undefined;
      });
      demo.child.kill('SIGINT');
      assert.equal(await demo.exited, 0, demo.output.stderr);
      // The demo has gone; its statement, still queued on the server, now gets the lock.
      await holder.query('ROLLBACK');
      await waitFor(async () => {
        const { rows } = await db.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [waiting]);
        return rows.length === 0 ? true : undefined;
      });
      const { rows } = await db.query('SELECT count(*)::int AS n FROM ambit_demo.birth_registrations');
      assert.equal(rows[0]?.n, BIRTH_ROWS);
    } finally {
      await holder.end();
      await db.close();
      rmSync(state, { recursive: true, force: true });
    }
  });
});
