// Run in a process of its own (runToEnd): `ambit relay serve` or `ambit verifier serve` is sent SIGTERM while its
// start waits on a PostgreSQL server that accepts the connection and never answers a query (the relay's snapshot
// load, the verifier's state store migration), so the start cannot end by itself. Prints the outcome as JSON.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { startFakeBackend } from '../helpers/fake-postgres-backend.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const STOP_KEY = 'stop-while-starting-key-0000000001';
export const RECORDS = '/v1/datasets/people/entities/person/records';

export type StopCase = 'relay' | 'relay --workers 2' | 'verifier';

export interface StopOutcome {
  readonly code: number | null;
  readonly signal: string | null;
  readonly output: string;
  /** The relay's answer to a read while it was loading (single process only). */
  readonly readStatus?: number;
  /** The audit file's lines once the process has exited. */
  readonly auditLines: string[];
  /** Connections to the database once every one was closed (a worker left running would hold its own). */
  readonly connections: number;
}

const RELAY_CONFIG = `server: { bind: 127.0.0.1:0 }
catalog: { title: Test, base_url: "http://127.0.0.1", publisher: Test }
auth:
  mode: api_key
  api_keys:
    - { id: reader, fingerprint: { provider: env, name: READER_HASH }, scopes: ["people:rows"] }
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: people
    title: People
    tables:
      - id: people_table
        source: { type: postgres, connection_env: DATABASE_URL_UNDER_TEST, table: { name: people } }
        primary_key: id
        schema: { fields: [{ name: id, type: integer, nullable: false }] }
    entities:
      - { name: person, table: people_table }
`;

const VERIFIER_CONFIG = `server: { bind: 127.0.0.1:0 }
auth:
  mode: api_key
  api_keys: [{ id: caller, fingerprint: { provider: env, name: READER_HASH }, scopes: [] }]
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
state:
  storage: postgresql
  evaluation_retention: 15m
  postgresql: { url_env: DATABASE_URL_UNDER_TEST }
evidence:
  service_id: stop.verifier
  claims:
    - id: always
      title: Always true
      version: "1"
      subject_type: person
      value: { type: boolean }
      rule: { type: cel, expression: "true" }
      disclosure: { default: predicate, allowed: [predicate] }
`;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function stopWhileStarting(which: StopCase): Promise<StopOutcome> {
  const backend = await startFakeBackend();
  // Each process that loads opens its own connection and sends its first query on it.
  const loaders = which === 'relay --workers 2' ? 2 : 1;
  const asked = new Set<Socket>();
  const loading = new Promise<void>((resolve) => {
    backend.onMessage = (_message, socket) => {
      asked.add(socket);
      if (asked.size === loaders) resolve();
    };
  });
  const dir = mkdtempSync(join(tmpdir(), 'ambit-stop-starting-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, which === 'verifier' ? VERIFIER_CONFIG : RELAY_CONFIG);
  const port = await freePort();
  const args =
    which === 'verifier'
      ? ['verifier', 'serve', '--config', config]
      : ['relay', 'serve', '--config', config, '--bind', `127.0.0.1:${port}`];
  if (which === 'relay --workers 2') args.push('--workers', '2');
  const { child, output, exited } = startAmbit(args, {
    DATABASE_URL_UNDER_TEST: backend.url,
    READER_HASH: fingerprintOf(STOP_KEY),
    AUDIT_SECRET: 'stop-while-starting-audit-secret-0123456789',
    AMBIT_LOG_LEVEL: 'warn',
  });
  await Promise.race([loading, exited]);
  let readStatus: number | undefined;
  if (which === 'relay') {
    const answer = await fetch(`http://127.0.0.1:${port}${RECORDS}`, {
      headers: { authorization: `Bearer ${STOP_KEY}` },
    });
    readStatus = answer.status;
  }
  child.kill('SIGTERM');
  const { code, signal } = await exited;
  await Promise.all(
    backend.sockets.map((socket) =>
      socket.closed ? undefined : new Promise((resolve) => socket.once('close', resolve)),
    ),
  );
  const auditPath = join(dir, 'audit.jsonl');
  const auditLines = existsSync(auditPath)
    ? readFileSync(auditPath, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    code,
    signal,
    output: output(),
    ...(readStatus === undefined ? {} : { readStatus }),
    auditLines,
    connections: backend.sockets.length,
  };
}

/**
 * `bin/ambit.js args` with `env` added, in a process group of its own: stopped whole (workers included) if this
 * script is stopped (a hang). Its standard output and error gathered as one text.
 */
export function startAmbit(args: readonly string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['bin/ambit.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  process.once('SIGTERM', () => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    process.exit(1);
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}
