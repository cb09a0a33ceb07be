// `--workers 2` over PostgreSQL when the table is written to between the workers' first loads: each worker reads
// it itself, so they start with different data. With `refresh.mode: manual` nothing would ever bring them
// together, and every other request would answer other rows under another ETag. The relay finds this once every
// worker has loaded and reloads them all; a source that differs on every read is named in a warning.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { URL_ENV } from '../helpers/postgres-relay.ts';
import { call, DRAWS_TABLE, manualPeopleConfig, type Served, serve, until } from './relay-scale-fixture.ts';

function configText(): string {
  return manualPeopleConfig(
    'Workers at start',
    `      - id: people
        source: { type: postgres, connection_env: ${URL_ENV}, table: { name: people } }
        primary_key: id
        schema: { fields: [{ name: id, type: integer, nullable: false }, { name: name, type: string }] }
${DRAWS_TABLE}`,
    `      - { name: people, table: people }
      - { name: draws, table: draws }
`,
  );
}

/** The relay's backends whose read of `people` waits for a lock. */
async function waitingReads(db: TestDatabase): Promise<number[]> {
  const result = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%people%'
        AND pid <> pg_backend_pid() ORDER BY backend_start`,
  );
  return result.rows.map((row) => row.pid);
}

describe('ambit relay serve --workers 2 whose workers loaded different data at start', () => {
  let db: TestDatabase;
  let dir: string;
  let relay: Served | undefined;
  const sessions: pg.Client[] = [];
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE people (id integer PRIMARY KEY, name text)');
    await db.query(`INSERT INTO people VALUES (1, 'before')`);
    dir = mkdtempSync(join(tmpdir(), 'ambit-start-agree-'));
    writeFileSync(join(dir, 'relay.yaml'), configText());
  });
  after(async () => {
    for (const session of sessions) await session.end().catch(() => {});
    await relay?.stop();
    rmSync(dir, { recursive: true, force: true });
    await db?.close();
  });

  /** A session of its own, holding `people` locked until it commits. */
  async function lockPeople(write?: string): Promise<pg.Client> {
    const session = new pg.Client({ connectionString: db.url });
    sessions.push(session);
    await session.connect();
    await session.query('BEGIN');
    if (write !== undefined) await session.query(write);
    await session.query('LOCK TABLE people IN ACCESS EXCLUSIVE MODE');
    return session;
  }

  const loadsOfPeople = (output: string) =>
    output
      .split('\n')
      .filter((line) => line.includes('"msg":"table loaded"') && line.includes('"table_id":"people"')).length;

  it('reloads every worker, so that they serve the same rows under the same ETag', {
    timeout: 90_000,
  }, async () => {
    // Both workers' first reads of `people` wait behind a lock; one of them is cancelled (retried 5 s later), the
    // other reads the table as it was; the table changes; the retried read finds it changed.
    const first = await lockPeople();
    const serving = serve({ configPath: join(dir, 'relay.yaml') }, ['--workers', '2'], {
      [URL_ENV]: db.url,
      AMBIT_LOG_LEVEL: 'info',
    });
    await until(async () => (await waitingReads(db)).length === 2, 'both workers wait for the lock', true);
    const [cancelled] = await waitingReads(db);
    await db.query('SELECT pg_cancel_backend($1)', [cancelled]);
    await until(async () => (await waitingReads(db)).length === 1, 'the cancelled read ends', true);
    await first.query('COMMIT');
    relay = await serving;
    const served = relay;
    await until(() => loadsOfPeople(served.output()) === 1, 'one worker loads the table as it was', true);
    const second = await lockPeople(`UPDATE people SET name = 'after' WHERE id = 1`);
    assert.equal(loadsOfPeople(served.output()), 1, 'the retried read came before the change');
    await until(
      async () => (await waitingReads(db)).length === 1,
      'the retried read waits for the lock',
      true,
    );
    await second.query('COMMIT');
    await until(async () => (await call(`${served.adminUrl}/ready`)).status === 200, 'both loaded', true);

    const answers = async () => {
      const seen = new Set<string>();
      for (let k = 0; k < 6; k++) {
        const answer = await call(`${served.url}/v1/datasets/people/entities/people/records/1`, {
          as: 'reader',
        });
        assert.equal(answer.status, 200, answer.body);
        seen.add(`${JSON.parse(answer.body).name} ${answer.headers.etag}`);
      }
      return seen;
    };
    await until(async () => (await answers()).size === 1, 'every worker answers alike', true);
    assert.match([...(await answers())][0] as string, /^after "/);
    // The query that draws another value on every read still differs after the reload: the operator is told.
    await until(
      () => /relay processes loaded different data at start/.test(served.output()),
      'a warning names what still differs',
      true,
    );
    const warning = served
      .output()
      .split('\n')
      .find((line) => line.includes('relay processes loaded different data at start'));
    assert.match(warning ?? '', /people\/draws/);
    assert.doesNotMatch(warning ?? '', /people\/people/);
  });
});
