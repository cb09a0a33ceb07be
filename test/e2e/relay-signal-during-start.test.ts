// A stop asked for while `ambit relay serve` is still starting (a snapshot held up in the database): the relay, and
// with `--workers` every worker, stops: its audit file closed, exit 0, no process left.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { URL_ENV } from '../helpers/postgres-relay.ts';
import { createPeople, peopleSchema, postgresSource } from '../relay/postgres-fixture.ts';
import { reloadEnv } from '../relay/reload-fixture.ts';
import { ROOT, until } from './relay-scale-fixture.ts';

function configText(admin: boolean): string {
  return `server:
  bind: 127.0.0.1:0
${admin ? '  admin_bind: 127.0.0.1:0\n' : ''}catalog: { title: Stop while starting, base_url: "http://127.0.0.1", publisher: Test }
auth:
  mode: api_key
  api_keys:
    - { id: reader, fingerprint: { provider: env, name: READER_HASH }, scopes: [people:rows] }
    - { id: operator, fingerprint: { provider: env, name: OPERATOR_HASH }, scopes: [relay:admin] }
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: people
    title: People
    tables:
      - id: people
        ${postgresSource({ table: 'people' })}${peopleSchema()}
    entities:
      - { name: people, table: people }
`;
}

/** Alive: signal 0 reaches it. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const CASES = [
  { workers: 1, signal: 'SIGTERM' as const },
  { workers: 2, signal: 'SIGTERM' as const },
  { workers: 2, signal: 'SIGINT' as const },
];

describe('a stop asked for while the relay is starting', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await createPeople(db);
  });
  after(async () => {
    await db?.close();
  });

  for (const { workers, signal } of CASES) {
    it(`${signal} to the relay (${workers === 1 ? 'one process' : `${workers} workers`}) stops it cleanly and exits 0`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ambit-stop-starting-'));
      const configPath = join(dir, 'relay.yaml');
      writeFileSync(configPath, configText(workers > 1));
      // The snapshot read waits for this lock, so the start cannot be over before the signal arrives.
      const locker = new pg.Client({ connectionString: db.url });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE people IN ACCESS EXCLUSIVE MODE');
      const child = spawn(
        process.execPath,
        ['bin/ambit.js', 'relay', 'serve', '--config', configPath, '--workers', String(workers)],
        {
          cwd: ROOT,
          env: { ...process.env, ...reloadEnv(), AMBIT_LOG_LEVEL: 'warn', [URL_ENV]: db.url },
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
      let locked = true;
      try {
        const waiting = async () =>
          (
            await db.query(
              "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ambit-relay' AND wait_event_type = 'Lock'",
            )
          ).rowCount ?? 0;
        await until(async () => (await waiting()) >= workers, 'every process waits for its snapshot', true);
        const processes = workers > 1 ? workerPidsOf(child.pid as number) : [];
        assert.equal(processes.length, workers > 1 ? workers : 0);
        child.kill(signal);
        await until(() => /stopping/.test(out), 'the relay says it is stopping', true);
        await locker.query('COMMIT');
        locked = false;
        assert.equal(await exited, 0, out);
        assert.ok(
          processes.every((pid) => !alive(pid)),
          'no worker is left running',
        );
        // The relay's (with workers, the primary's) audit writer was closed: it left no lock behind.
        assert.equal(existsSync(join(dir, 'audit.jsonl.lock')), false, 'audit.jsonl.lock is left behind');
        assert.doesNotMatch(out, /startup failed|exited before listening/);
      } finally {
        if (locked) await locker.query('ROLLBACK');
        await locker.end();
        if (child.exitCode === null) child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

/** The primary's worker processes. */
function workerPidsOf(pid: number): number[] {
  return execFileSync('pgrep', ['-P', String(pid), '-f', 'relay serve'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}
