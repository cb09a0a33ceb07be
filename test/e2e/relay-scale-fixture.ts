// Shared by the relay scale-out tests: serving a reload fixture with `ambit relay serve` in a process of its own,
// one request per connection, and the waits and worker lookups those tests need.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { URL_ENV } from '../helpers/postgres-relay.ts';
import {
  createReloadFixture,
  RELOAD_KEYS,
  type ReloadFixture,
  type ReloadPersona,
  reloadEnv,
} from '../relay/reload-fixture.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PEOPLE = '/v1/datasets/people/entities/person/records';

export interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly adminUrl: string | undefined;
  output(): string;
  stop(): Promise<number | null>;
  /** Sends `signal` to the relay, or to its whole process group (it must have been served with `group`). */
  signal(signal: NodeJS.Signals, group?: boolean): void;
  readonly exited: Promise<number | null>;
}

/** `group`: the relay leads a process group of its own, so a test can signal it and its workers at once. */
export async function serve(
  fixture: Pick<ReloadFixture, 'configPath'>,
  extra: string[] = [],
  env: Record<string, string> = {},
  group = false,
) {
  const child = spawn(
    process.execPath,
    ['bin/ambit.js', 'relay', 'serve', '--config', fixture.configPath, ...extra],
    {
      cwd: ROOT,
      env: { ...process.env, ...reloadEnv(), AMBIT_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: group,
    },
  );
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The admin listener's line is written after the public one and may arrive in a later chunk: a config with an
  // admin listener is served once both are announced.
  const withAdmin = readFileSync(fixture.configPath, 'utf8').includes('admin_bind:');
  const announced = () =>
    /listening on (http:\S+)/.test(out) && (!withAdmin || /admin listener on (http:\S+)/.test(out));
  const deadline = Date.now() + 60_000;
  while (!announced() && Date.now() < deadline && child.exitCode === null) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = /listening on (http:\S+)/.exec(out)?.[1];
  assert.ok(url, out);
  const served: Served = {
    child,
    url,
    get adminUrl() {
      return /admin listener on (http:\S+)/.exec(out)?.[1];
    },
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    signal(signal, group = false) {
      if (child.exitCode !== null || child.pid === undefined) return;
      if (group) process.kill(-child.pid, signal);
      else child.kill(signal);
    },
    exited,
  };
  return served;
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request on a connection of its own, so a cluster hands consecutive requests to different workers. */
export function call(
  url: string,
  options: { method?: string; as?: ReloadPersona; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.as) headers.authorization = `Bearer ${RELOAD_KEYS[options.as]}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const req = httpRequest(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export function json(answer: Answer): { data: { id: number }[]; pagination: { next_cursor?: string } } {
  assert.equal(answer.status, 200, answer.body.slice(0, 300));
  return JSON.parse(answer.body);
}

/** The workers: the primary's children running the same command (a build tool may be another child). */
export function workerPids(relay: Served): number[] {
  return execFileSync('pgrep', ['-P', String(relay.child.pid), '-f', 'relay serve'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  slow = false,
): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, slow ? 100 : 20));
  }
}

/**
 * A reload fixture with an admin listener, served by `ambit relay serve --workers 2` for the suite's tests and
 * stopped after them; `prepare` writes the fixture's files first, `env` adds to the relay's environment.
 */
export function useServedWorkers(
  options: { prepare?: (fixture: ReloadFixture) => void; env?: Record<string, string> } = {},
): { readonly fixture: ReloadFixture; readonly relay: Served } {
  let fixture: ReloadFixture;
  let relay: Served;
  before(async () => {
    fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    options.prepare?.(fixture);
    relay = await serve(fixture, ['--workers', '2'], options.env);
  });
  after(async () => {
    await relay?.stop();
    fixture?.remove();
  });
  return {
    get fixture() {
      return fixture;
    },
    get relay() {
      return relay;
    },
  };
}

/**
 * A relay config over PostgreSQL (`${URL_ENV}`) with one manually refreshed dataset `people`: `tables` and
 * `entities` are YAML list items at their indentation; a reader key and an operator key (`relay:admin`).
 */
export function manualPeopleConfig(title: string, tables: string, entities: string): string {
  return `server:
  bind: 127.0.0.1:0
  admin_bind: 127.0.0.1:0
catalog: { title: ${title}, base_url: "http://127.0.0.1", publisher: Test }
auth:
  mode: api_key
  api_keys:
    - { id: reader, fingerprint: { provider: env, name: READER_HASH }, scopes: [people:metadata, people:rows] }
    - { id: operator, fingerprint: { provider: env, name: OPERATOR_HASH }, scopes: [relay:admin] }
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: people
    title: People
    defaults: { refresh: { mode: manual } }
    tables:
${tables}    entities:
${entities}`;
}

/** Table `draws`: a query answering another value on every read. */
export const DRAWS_TABLE = `      - id: draws
        source: { type: postgres, connection_env: ${URL_ENV}, query: "SELECT 1 AS id, random()::text AS draw" }
        primary_key: id
        schema: { fields: [{ name: id, type: integer, nullable: false }, { name: draw, type: string }] }
`;
