// `ambit config check --connect`: a relay's PostgreSQL sources checked against their databases as a start checks
// them (columns, types, the live key index, change_token_sql), without loading rows or writing anything.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { postgresRelayConfig, URL_ENV } from '../helpers/postgres-relay.ts';
import { runCli } from '../helpers/run-cli.ts';
import { ACCESS, postgresSource } from '../relay/postgres-fixture.ts';
import { AUDIT_SECRET, useScratchDir, VALID } from './cli-fixture.ts';

const scratch = useScratchDir();

/** Table `id` served from `source` (`materialization` and extra source keys as given), fields id and label. */
function tableYaml(
  id: string,
  source: string,
  extra: { live?: boolean; sourceKeys?: string; refresh?: string },
) {
  return `
      - id: ${id}
        ${postgresSource({ table: source }, extra.sourceKeys ?? '')}${extra.live ? '\n        materialization: live' : ''}${extra.refresh ? `\n        refresh: ${extra.refresh}` : ''}
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: label, type: string }] }`;
}

function relayConfig(tables: string, entities: string[]): string {
  const path = join(scratch.dir, `relay-${Math.random().toString(36).slice(2)}.yaml`);
  const datasets = `  - id: registry
    title: Registry
    tables:${tables}
    entities:${entities.map((name) => `\n      - { name: ${name}, table: ${name}, ${ACCESS} }`).join('')}`;
  writeFileSync(path, postgresRelayConfig(datasets, join(scratch.dir, 'audit.jsonl')));
  return path;
}

describe('ambit config check --connect', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase();
    await db.query('CREATE TABLE people (id integer PRIMARY KEY, label text NOT NULL)');
    await db.query("INSERT INTO people VALUES (1, 'one'), (2, 'two')");
    await db.query('CREATE TABLE thin (id integer PRIMARY KEY)');
  });
  after(() => db.close());

  const env = (url: string) => ({ READER_HASH: fingerprintOf('reader-key'), AUDIT_SECRET, [URL_ENV]: url });

  it('says ok for each table a start would serve, and reads nothing into memory or writes', async () => {
    const config = relayConfig(
      tableYaml('live', 'people', { live: true }) +
        tableYaml('copy', 'people', {
          sourceKeys: 'change_token_sql: "SELECT count(*) FROM people"',
          refresh: '{ mode: mtime, interval: 10s }',
        }),
      ['live', 'copy'],
    );
    const result = await runCli(['config', 'check', '--config', config, '--connect'], env(db.url));
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.match(result.out[0] as string, /^ok: /);
    assert.deepEqual(result.out.slice(1), ['  ok: registry/live (live)', '  ok: registry/copy (snapshot)']);
    const count = await db.query('SELECT count(*)::int AS n FROM people');
    assert.equal(count.rows[0]?.n, 2);
  });

  it('names each table a start would refuse, with the load error code, and exits 1', async () => {
    const config = relayConfig(
      tableYaml('thin_live', 'thin', { live: true }) +
        tableYaml('thin_copy', 'thin', {}) +
        tableYaml('absent', 'no_such_table', {}) +
        tableYaml('token', 'people', {
          sourceKeys: 'change_token_sql: "SELECT missing_column FROM people"',
          refresh: '{ mode: mtime, interval: 10s }',
        }),
      ['thin_live', 'thin_copy', 'absent', 'token'],
    );
    const result = await runCli(['config', 'check', '--config', config, '--connect'], env(db.url));
    assert.equal(result.code, 1);
    const lines = result.err.join('\n');
    assert.match(lines, /registry\/thin_live \(live\): ingest\.missing_column/);
    assert.match(lines, /registry\/thin_copy \(snapshot\): ingest\.missing_column/);
    assert.match(lines, /registry\/absent \(snapshot\): ingest\.query_failed/);
    assert.match(lines, /registry\/token \(snapshot\): ingest\.query_failed/);
    // The table whose change token fails would still serve: it is counted apart.
    assert.match(lines, /3 of 4 PostgreSQL tables would fail to serve/);
    assert.match(lines, /1 of 4 PostgreSQL tables would serve data no refresh would ever update/);
  });

  it('names the column a refusal is about, as a start does', async () => {
    await db.query('CREATE TABLE clocks (id integer PRIMARY KEY, label time)');
    const config = relayConfig(tableYaml('clocks', 'clocks', { live: true }), ['clocks']);
    const result = await runCli(['config', 'check', '--config', config, '--connect'], env(db.url));
    assert.equal(result.code, 1);
    assert.match(
      result.err.join('\n'),
      /registry\/clocks \(live\): ingest\.type_mismatch: column "label": column is time without time zone/,
    );
  });

  it('a database that does not answer is unavailable; the connection string and password are never printed', async () => {
    // A port that refuses connections: listened on, then closed.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const url = `postgres://reader:s3cret-pass@127.0.0.1:${port}/registry`;
    const config = relayConfig(tableYaml('live', 'people', { live: true }), ['live']);
    const result = await runCli(['config', 'check', '--config', config, '--connect'], env(url));
    assert.equal(result.code, 1);
    assert.match(result.err.join('\n'), /registry\/live \(live\): ingest\.source_unavailable/);
    assert.doesNotMatch([...result.out, ...result.err].join('\n'), /s3cret-pass|reader:/);
  });

  it('a relay without PostgreSQL sources says so; a verifier config refuses the flag', async () => {
    const minimal = await runCli(['config', 'check', '--config', join(VALID, 'minimal.yaml'), '--connect'], {
      READER_HASH: fingerprintOf('reader-key'),
      AUDIT_SECRET,
    });
    assert.equal(minimal.code, 0, minimal.err.join('\n'));
    assert.equal(minimal.out[1], '  no PostgreSQL sources to connect to');
    const verifier = await runCli(
      ['config', 'check', '--config', join(VALID, 'minimal.yaml'), '--kind', 'verifier', '--connect'],
      {},
    );
    assert.equal(verifier.code, 2);
    assert.match(verifier.err[0] as string, /--connect checks the PostgreSQL sources of a relay config/);
  });
});
