// The config the relay bounds tests change one value of at a time, and how they read what a load reports.
import assert from 'node:assert/strict';
import { fingerprintOf } from '../../platform/auth/api-key.ts';
import { issuesAtPath } from '../../platform/config/config-issues-test-support.ts';
import { loadRelayConfigText } from './load-relay-config.ts';

/** Also a fingerprint per key of the longest key list a config may hold: keys may not share one. */
export const ENV = {
  READER_HASH: fingerprintOf('reader-key'),
  AUDIT_SECRET: 'audit-secret-for-bounds-tests-0123456',
  ...Object.fromEntries(Array.from({ length: 1000 }, (_, k) => [`KEY_${k}`, fingerprintOf(`key-${k}`)])),
};

export const CONFIG = {
  instance: { id: 'relay-1' },
  server: { bind: '127.0.0.1:4242' },
  catalog: { title: 'T', base_url: 'https://relay.example.org', publisher: 'P' },
  auth: {
    mode: 'api_key',
    api_keys: [
      { id: 'reader', fingerprint: { provider: 'env', name: 'READER_HASH' }, scopes: ['people:rows'] },
    ],
  },
  audit: { sink: 'stdout', hash_secret_env: 'AUDIT_SECRET' },
  datasets: [
    {
      id: 'people',
      title: 'People',
      tables: [
        {
          id: 'persons',
          source: { type: 'file', path: 'persons.csv' },
          primary_key: 'national_id',
          schema: { fields: [{ name: 'national_id', type: 'string', nullable: false }] },
        },
        {
          id: 'sheet',
          source: { type: 'file', path: 'people.xlsx', format: { xlsx: { sheet: 'People' } } },
          primary_key: 'national_id',
          schema: { fields: [{ name: 'national_id', type: 'string', nullable: false }] },
        },
      ],
      entities: [
        {
          name: 'person',
          table: 'persons',
          fields: [{ name: 'national_id' }],
          relationships: [{ name: 'same', kind: 'belongs_to', target: 'person', foreign_key: 'national_id' }],
        },
      ],
      aggregates: [
        {
          id: 'counts',
          source_entity: 'person',
          dimensions: [{ id: 'who', field: 'national_id' }],
          indicators: [{ id: 'people', function: 'count' }],
        },
      ],
    },
  ],
};

/** CONFIG with `value` at the dotted `path` (objects on the way are created); JSON is YAML. */
export function withValue(path: string, value: unknown): string {
  const config = structuredClone(CONFIG) as Record<string, unknown>;
  const keys = path.split('.');
  let node = config;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
  return JSON.stringify(config);
}

export const issuesAt = (text: string, path: string) =>
  issuesAtPath(() => loadRelayConfigText(text, ENV, '/tmp'), path);

export const refusedAt = (text: string, path: string, message: string) =>
  assert.deepEqual(issuesAt(text, path), [{ code: 'config.validation_error', message }], path);
export const loads = (text: string, path: string) =>
  assert.doesNotThrow(() => loadRelayConfigText(text, ENV, '/tmp'), path);
/** `path` refuses `over` and loads `limit`. */
export const bounded = (path: string, limit: unknown, over: unknown, message: string) => {
  refusedAt(withValue(path, over), path, message);
  loads(withValue(path, limit), path);
};

export const GIB = 1024 ** 3;
export const TABLE = 'datasets.0.tables.0';
export const FIELD = `${TABLE}.schema.fields.0`;
export const ENTITY = 'datasets.0.entities.0';
export const AGGREGATE = 'datasets.0.aggregates.0';
