// A relay config in a temporary folder whose CSV files a test rewrites: two tables (one polled by mtime, one on an
// interval), an aggregate, a reader key, and one key per admin scope; and the relay started in-process on it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Response } from 'light-my-request';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { type Clock, systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';

export const RELOAD_KEYS = {
  reader: 'reload-test-reader-key-000000000001',
  operator: 'reload-test-operator-key-0000000001',
  admin_only: 'reload-test-admin-only-key-00000001',
  ops_only: 'reload-test-ops-only-key-0000000001',
  metrics_only: 'reload-test-metrics-only-key-000001',
  rows_and_metadata: 'reload-test-rows-metadata-key-00001',
} as const;

export type ReloadPersona = keyof typeof RELOAD_KEYS;

export const RELOAD_AUDIT_SECRET = 'reload-test-audit-secret-0123456789abcdef';

const SCOPES: Record<ReloadPersona, string[]> = {
  reader: ['people:metadata', 'people:rows', 'people:aggregate'],
  operator: ['relay:admin', 'relay:ops_read', 'relay:metrics_read'],
  admin_only: ['relay:admin'],
  ops_only: ['relay:ops_read'],
  metrics_only: ['relay:metrics_read'],
  rows_and_metadata: ['people:metadata', 'people:rows'],
};

export function reloadEnv(): Record<string, string> {
  const env: Record<string, string> = { AUDIT_SECRET: RELOAD_AUDIT_SECRET };
  for (const [persona, key] of Object.entries(RELOAD_KEYS))
    env[`${persona.toUpperCase()}_HASH`] = fingerprintOf(key);
  return env;
}

export function configText(options: { adminBind?: string; peopleRefresh?: string } = {}): string {
  const keys = Object.keys(RELOAD_KEYS)
    .map(
      (persona) =>
        `    - { id: ${persona}, fingerprint: { provider: env, name: ${persona.toUpperCase()}_HASH }, scopes: ${JSON.stringify(SCOPES[persona as ReloadPersona])} }`,
    )
    .join('\n');
  return `server:
  bind: 127.0.0.1:0
${options.adminBind === undefined ? '' : `  admin_bind: ${options.adminBind}\n`}catalog: { title: Reload test, base_url: "http://127.0.0.1", publisher: Test }
auth:
  mode: api_key
  api_keys:
${keys}
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: people
    title: People
    defaults:
      refresh: { mode: mtime, interval: 1h }
    tables:
      - id: people_table
        source: { type: file, path: people.csv }
${options.peopleRefresh === undefined ? '' : `        refresh: ${options.peopleRefresh}\n`}        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: district, type: string }
            - { name: born, type: date }
      - id: district_table
        source: { type: file, path: districts.csv }
        refresh: { mode: interval, interval: 1h }
        primary_key: code
        schema:
          fields:
            - { name: code, type: string, nullable: false }
            - { name: name, type: string }
    entities:
      - name: person
        table: people_table
        api: { allowed_filters: [{ field: district, ops: [eq] }] }
      - { name: district, table: district_table }
    aggregates:
      - id: people_by_district
        source_entity: person
        dimensions: [{ id: district, field: district }]
        default_group_by: [district]
        indicators: [{ id: people, function: count }]
        disclosure_control: { min_cell_size: 1 }
`;
}

/** `count` people spread over districts a..c; `born` varies with `seed` so two versions differ in every row. */
export function peopleCsv(count: number, seed = 0): string {
  const rows = ['id,district,born'];
  for (let i = 1; i <= count; i++) {
    const district = 'abc'[i % 3];
    const day = String(((i + seed) % 28) + 1).padStart(2, '0');
    rows.push(`${i},${district},2001-02-${day}`);
  }
  return `${rows.join('\n')}\n`;
}

export const DISTRICTS_CSV = 'code,name\na,Alpha\nb,Beta\nc,Gamma\n';

export interface ReloadFixture {
  readonly dir: string;
  readonly configPath: string;
  writePeople(text: string): void;
  writeDistricts(text: string): void;
  remove(): void;
}

export function createReloadFixture(options: Parameters<typeof configText>[0] = {}): ReloadFixture {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-reload-'));
  const configPath = join(dir, 'relay.yaml');
  writeFileSync(configPath, configText(options));
  writeFileSync(join(dir, 'people.csv'), peopleCsv(30));
  writeFileSync(join(dir, 'districts.csv'), DISTRICTS_CSV);
  return {
    dir,
    configPath,
    writePeople: (text) => writeFileSync(join(dir, 'people.csv'), text),
    writeDistricts: (text) => writeFileSync(join(dir, 'districts.csv'), text),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Harness {
  fixture: ReloadFixture;
  relay: RelayApp;
  admin: FastifyInstance;
  logLines: string[];
  get(path: string, as?: ReloadPersona): Promise<Response>;
  post(path: string, as?: ReloadPersona): Promise<Response>;
  metric(line: RegExp): Promise<number | undefined>;
}

export async function startHarness(
  options: Parameters<typeof createReloadFixture>[0] = {},
  clock: Clock = systemClock,
): Promise<Harness> {
  const fixture = createReloadFixture({ adminBind: '127.0.0.1:0', ...options });
  const logLines: string[] = [];
  const destination = { write: (line: string) => logLines.push(line) } as unknown as NodeJS.WritableStream;
  const logger = createLogger({ name: 'reload-test', level: 'info', destination });
  const relay = createRelayApp(loadRelayConfig(fixture.configPath, reloadEnv()), {
    logger,
    clock,
    random: systemRandom,
  });
  await relay.loaded;
  const admin = relay.admin as FastifyInstance;
  await Promise.all([relay.app.ready(), admin.ready()]);
  const auth = (as?: ReloadPersona) => (as ? { authorization: `Bearer ${RELOAD_KEYS[as]}` } : {});
  const harness: Harness = {
    fixture,
    relay,
    admin,
    logLines,
    get: (path, as = 'reader') => relay.app.inject({ method: 'GET', url: path, headers: auth(as) }),
    post: (path, as = 'operator') => admin.inject({ method: 'POST', url: path, headers: auth(as) }),
    async metric(line) {
      const text = (await admin.inject({ method: 'GET', url: '/metrics', headers: auth('operator') })).body;
      const found = text.split('\n').find((candidate) => line.test(candidate));
      return found === undefined ? undefined : Number(found.slice(found.lastIndexOf(' ') + 1));
    },
  };
  return harness;
}

export async function closeHarness(harness: Harness): Promise<void> {
  await harness.relay.close();
  harness.fixture.remove();
}
