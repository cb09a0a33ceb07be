// Two `ambit verifier serve` processes sharing one PostgreSQL, started together: they migrate once, an evaluation
// made on one renders on the other (for its caller only), a batch Idempotency-Key replays across them, and a third
// instance finding the schema migrated past its version refuses to use it.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { MIGRATIONS, NEWEST_VERSION } from '../../src/verifier/state/postgres-migrations.ts';
import { openTestDatabase } from '../helpers/postgres-harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEYS = { a: 'shared-state-key-a-000000000000001', b: 'shared-state-key-b-000000000000001' };
const PURPOSE = 'https://p.example/eligibility';

const CONFIG = `server: { bind: 127.0.0.1:0 }
auth:
  mode: api_key
  api_keys:
    - { id: caller_a, fingerprint: { provider: env, name: CALLER_A_HASH }, scopes: [] }
    - { id: caller_b, fingerprint: { provider: env, name: CALLER_B_HASH }, scopes: [] }
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
state:
  storage: postgresql
  postgresql: { url_env: STATE_URL }
evidence:
  service_id: shared.verifier
  claims:
    - id: is_person
      title: Target is the first person
      version: "1"
      subject_type: person
      value: { type: boolean }
      rule: { type: cel, expression: "ctx.target.id == 'p-1'" }
      disclosure: { default: predicate, allowed: [predicate] }
      operations: { batch_evaluate: { enabled: true } }
`;

interface Instance {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
}

function start(dir: string, env: Record<string, string>): Promise<Instance> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'verifier.yaml');
  writeFileSync(path, CONFIG);
  const child = spawn(process.execPath, ['bin/ambit.js', 'verifier', 'serve', '--config', path], {
    cwd: ROOT,
    env: { ...process.env, ...env, AMBIT_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve({ child, url: match[1] as string, output: () => output });
      }
    }, 50);
    child.on('exit', () => {
      clearInterval(timer);
      reject(new Error(`exited early: ${output}`));
    });
  });
}

async function stop(instance: Instance): Promise<number | null> {
  if (instance.child.exitCode !== null) return instance.child.exitCode;
  const exited = new Promise<number | null>((resolve) => instance.child.on('exit', (code) => resolve(code)));
  instance.child.kill('SIGTERM');
  return exited;
}

async function post(
  instance: Instance,
  path: string,
  body: unknown,
  options: { key?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${instance.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': options.key ?? KEYS.a,
      'data-purpose': PURPOSE,
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('two verifier processes sharing PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-verifier-shared-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('share evaluations and idempotency records', { timeout: 120_000 }, async () => {
    const database = await openTestDatabase();
    const env = {
      CALLER_A_HASH: fingerprintOf(KEYS.a),
      CALLER_B_HASH: fingerprintOf(KEYS.b),
      AUDIT_SECRET: 'shared-state-audit-secret-0123456789ab',
      STATE_URL: database.url,
    };
    const instances: Instance[] = [];
    try {
      // Started at the same moment against an empty database: both migrate, one of them does the work (each
      // migration is recorded once).
      instances.push(...(await Promise.all([start(join(dir, 'one'), env), start(join(dir, 'two'), env)])));
      const [one, two] = instances as [Instance, Instance];
      const migrations = await database.query('SELECT version FROM ambit_verifier.schema_migrations');
      assert.equal(migrations.rowCount, MIGRATIONS.length);
      for (const instance of instances) {
        const ready = await fetch(`${instance.url}/ready`);
        assert.equal(ready.status, 200, await ready.text());
      }

      // Evaluated on one, rendered on the other.
      const target = { type: 'person', id: 'p-1' };
      const made = await post(one, '/v1/evaluations', { target, claims: ['is_person'] });
      assert.equal(made.status, 200, made.text);
      const { results } = JSON.parse(made.text);
      const id = results[0].evaluation_id;
      const rendered = await post(two, `/v1/evaluations/${id}/render`, {});
      assert.equal(rendered.status, 200, rendered.text);
      assert.deepEqual(JSON.parse(rendered.text), { results });
      const stranger = await post(two, `/v1/evaluations/${id}/render`, {}, { key: KEYS.b });
      assert.equal(stranger.status, 404);
      assert.equal(JSON.parse(stranger.text).code, 'evaluation.not_found');

      // A batch with an Idempotency-Key on one, the same request on the other: replayed, not run again.
      const batch = {
        items: [{ target }, { target: { type: 'person', id: 'p-2' } }],
        claims: ['is_person'],
      };
      const headers = { 'idempotency-key': 'shared-key-1' };
      const first = await post(one, '/v1/batch-evaluations', batch, { headers });
      assert.equal(first.status, 200, first.text);
      const replay = await post(two, '/v1/batch-evaluations', batch, { headers });
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.text, first.text);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      const conflict = await post(
        two,
        '/v1/batch-evaluations',
        { ...batch, items: [{ target }] },
        { headers },
      );
      assert.equal(conflict.status, 409);
      assert.equal(JSON.parse(conflict.text).code, 'idempotency.conflict');
      // The batch's item evaluations are shared too.
      const itemId = JSON.parse(first.text).items[1].evaluation_id;
      const item = await post(two, `/v1/evaluations/${itemId}/render`, {});
      assert.equal(item.status, 200, item.text);
      assert.equal(JSON.parse(item.text).results[0].satisfied, false);

      // A later release has migrated the database past what this version knows: a third instance of this version
      // starts, is not ready, refuses evaluations with 503 state.unavailable and says why in its log.
      await database.query('INSERT INTO ambit_verifier.schema_migrations (version, name) VALUES ($1, $2)', [
        NEWEST_VERSION + 1,
        'from a later release',
      ]);
      const older = await start(join(dir, 'three'), env);
      instances.push(older);
      const notReady = await fetch(`${older.url}/ready`);
      assert.equal(notReady.status, 503);
      assert.equal(((await notReady.json()) as { code?: string }).code, 'readiness.not_ready');
      const refused = await post(older, '/v1/evaluations', { target, claims: ['is_person'] });
      assert.equal(refused.status, 503, refused.text);
      assert.equal(JSON.parse(refused.text).code, 'state.unavailable');
      const warning = older
        .output()
        .split('\n')
        .find((line) => line.includes('migrations not applied'));
      assert.equal(JSON.parse(warning ?? '{}').err_code, 'schema_too_new', older.output());
    } finally {
      const codes = await Promise.all(instances.map(stop));
      await database.close();
      assert.deepEqual(
        codes,
        instances.map(() => 0),
        instances.map((instance) => instance.output()).join('\n'),
      );
    }
  });
});
