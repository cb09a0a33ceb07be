// `--workers 2` whose worker is killed (as the out-of-memory killer would) while its first load runs: the relay
// does not start half its workers, and the operator reads which worker ended and by what signal.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { URL_ENV } from '../helpers/postgres-relay.ts';
import { reloadEnv } from '../relay/reload-fixture.ts';
import { manualPeopleConfig, ROOT, until, workerPids } from './relay-scale-fixture.ts';

const PEOPLE = `      - id: people
        source: { type: postgres, connection_env: ${URL_ENV}, table: { name: people } }
        primary_key: id
        schema: { fields: [{ name: id, type: integer, nullable: false }, { name: name, type: string }] }
`;

describe('ambit relay serve --workers 2 whose worker is killed during its first load', () => {
  let db: TestDatabase;
  let dir: string;
  let lock: pg.Client | undefined;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE people (id integer PRIMARY KEY, name text)');
    await db.query(`INSERT INTO people VALUES (1, 'one')`);
    dir = mkdtempSync(join(tmpdir(), 'ambit-killed-at-start-'));
    writeFileSync(
      join(dir, 'relay.yaml'),
      manualPeopleConfig('Killed at start', PEOPLE, '      - { name: people, table: people }\n'),
    );
  });
  after(async () => {
    await lock?.end().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    await db?.close();
  });

  it('stops the relay with status 1, naming the worker and the signal that ended it', {
    timeout: 90_000,
  }, async () => {
    // Both first loads wait behind a lock, so the kill comes while the worker is starting.
    lock = new pg.Client({ connectionString: db.url });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE people IN ACCESS EXCLUSIVE MODE');
    const child = spawn(
      process.execPath,
      ['bin/ambit.js', 'relay', 'serve', '--config', join(dir, 'relay.yaml'), '--workers', '2'],
      {
        cwd: ROOT,
        env: { ...process.env, ...reloadEnv(), [URL_ENV]: db.url, AMBIT_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      out += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const waiting = async () =>
      (
        await db.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
             AND pid <> pg_backend_pid()`,
        )
      ).rowCount === 2;
    await until(waiting, 'both workers wait for the lock', true);
    const relay = { child } as Parameters<typeof workerPids>[0];
    const [victim] = workerPids(relay);
    assert.ok(victim, out);
    process.kill(victim, 'SIGKILL');
    assert.equal(await exited, 1, out);
    assert.match(out, /startup failed: worker [12] was killed by SIGKILL while starting/);
    assert.doesNotMatch(out, /listening on/);
    assert.doesNotMatch(out, /code SIGKILL/);
  });
});
