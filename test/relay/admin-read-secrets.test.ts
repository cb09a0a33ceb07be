// The admin listener's read answers (posture, capabilities, metrics) for a config that puts a secret everywhere a
// secret can go: key fingerprints, the audit secret, a database URL with its password, credentials in the public
// base URL, connection strings and paths brought into free text through `${VAR}`, secret-looking directory names.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createLocalAdminBackend } from '../../src/relay/admin/admin-backend.ts';
import { createRelayAdminApp } from '../../src/relay/admin/create-relay-admin-app.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { createRelayMetrics } from '../../src/relay/metrics/relay-metrics.ts';
import type { Reloader } from '../../src/relay/reload/reloader.ts';
import { createReloadFixture, RELOAD_AUDIT_SECRET, RELOAD_KEYS, reloadEnv } from './reload-fixture.ts';

const SECRETS = {
  DB_URL: 'postgres://relay_reader:db-Pa55word-7f3a@127.0.0.1:5432/registry_db',
  TITLE_TEXT: 'postgres://ops:title-Pa55word-91c2@db.internal.example:5432/x',
  PUBLISHER_TEXT: '/srv/secret-dir-4a1b/relay.env',
  DESCRIPTION_TEXT: 'token=desc-T0ken-55e1&password=desc-Pa55-55e1',
  ENVIRONMENT_TEXT: 'https://user:env-Pa55word-0b9d@hooks.example.org/x?token=env-T0ken-0b9d',
} as const;

/** Strings none of the answers may hold: values, the variable names that carry them, paths, hosts. */
const FORBIDDEN = [
  ...Object.values(SECRETS),
  ...Object.keys(SECRETS),
  'db-Pa55word-7f3a',
  'title-Pa55word-91c2',
  'secret-dir-4a1b',
  'desc-T0ken-55e1',
  'env-Pa55word-0b9d',
  'env-T0ken-0b9d',
  'base-Pa55word-c0de',
  'relay_reader',
  'registry_db',
  'db.internal.example',
  'hooks.example.org',
  'relay.example.org',
  RELOAD_AUDIT_SECRET,
  ...Object.values(RELOAD_KEYS),
  'AUDIT_SECRET',
  '_HASH',
  // The keys' fingerprints, as their variables hold them.
  ...Object.values(RELOAD_KEYS).map((key) => fingerprintOf(key).slice('sha256:'.length)),
  'postgres://',
  'https://',
  '127.0.0.1',
  '5432',
  '/srv/',
  'audit.jsonl',
  'people.csv',
];

describe('admin read answers for a config full of secrets', () => {
  let app: FastifyInstance;
  let dir: string;
  const answers: string[] = [];
  before(async () => {
    const fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
    dir = fixture.dir;
    // The audit file in a folder whose name is itself a secret.
    mkdirSync(join(fixture.dir, 'secret-dir-4a1b'));
    const ref = (name: keyof typeof SECRETS) => `\${${name}}`;
    const liveTable = [
      '      - id: live_table',
      '        source: { type: postgres, connection_env: DB_URL, table: { name: people } }',
      '        materialization: live',
      '        refresh: { mode: manual }',
      '        primary_key: id',
      '        schema: { fields: [{ name: id, type: integer, nullable: false }] }',
    ];
    const text = readFileSync(fixture.configPath, 'utf8')
      .replace(
        /^catalog: .*$/m,
        `catalog: { title: "${ref('TITLE_TEXT')}", description: "${ref('DESCRIPTION_TEXT')}", base_url: "https://admin:base-Pa55word-c0de@relay.example.org/", publisher: "${ref('PUBLISHER_TEXT')}" }`,
      )
      .replace('path: audit.jsonl', 'path: secret-dir-4a1b/audit.jsonl')
      .replace(
        '    tables:\n',
        `    description: "${ref('DESCRIPTION_TEXT')}"\n    tables:\n${liveTable.join('\n')}\n`,
      );
    const instance = `{ id: "${ref('DB_URL')}", environment: "${ref('ENVIRONMENT_TEXT')}", owner: "${ref('PUBLISHER_TEXT')}" }`;
    writeFileSync(fixture.configPath, `instance: ${instance}\n${text}`);
    const loaded = loadRelayConfig(fixture.configPath, { ...reloadEnv(), ...SECRETS });
    const state = { generation: undefined, readiness: { total: 3, loaded: 0, failed: 0 } };
    const metrics = createRelayMetrics(loaded.config);
    app = createRelayAdminApp({
      loaded,
      authenticate: () => ({
        id: 'operator',
        authMode: 'api_key',
        scopes: new Set(['relay:ops_read', 'relay:metrics_read']),
        credentialTag: 'operator',
      }),
      backend: createLocalAdminBackend({} as Reloader, metrics, state),
      processes: 1,
      requestTimeoutMs: 5000,
      deps: { logger: silentLogger(), clock: systemClock, random: systemRandom },
    });
    for (const url of ['/admin/v1/posture', '/admin/v1/capabilities', '/metrics']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      answers.push(response.body);
    }
    fixture.remove();
  });
  after(() => app?.close());

  it('names none of them in posture, capabilities or metrics', () => {
    for (const [i, body] of answers.entries()) {
      for (const needle of FORBIDDEN)
        assert.equal(body.includes(needle), false, `answer ${i} holds ${needle}`);
      assert.equal(body.includes(dir), false, `answer ${i} holds the config folder`);
    }
  });

  it('still says what it may: redacted names, the live table counted and labelled by its id', () => {
    const posture = JSON.parse(answers[0] as string);
    assert.deepEqual(posture.instance, { id: 'redacted', environment: 'redacted', owner: 'redacted' });
    assert.deepEqual(posture.relay.materializations, { snapshot: 2, live: 1 });
    assert.match(
      answers[2] as string,
      /^ambit_relay_datasource_live_scans_total\{dataset="people",table="live_table",outcome="ok"\} 0$/m,
    );
  });
});
