// Every size, count and free-text string of a relay config has an upper bound: a value past it is refused at load, at
// its path, rather than loading and misbehaving (or filling every metadata page) once it is used. The limit loads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../platform/auth/api-key.ts';
import { issuesAtPath } from '../../platform/config/config-issues-test-support.ts';
import { loadRelayConfigText } from './load-relay-config.ts';

const ENV = {
  READER_HASH: fingerprintOf('reader-key'),
  AUDIT_SECRET: 'audit-secret-for-bounds-tests-0123456',
};

const CONFIG = {
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
function withValue(path: string, value: unknown): string {
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

const issuesAt = (text: string, path: string) =>
  issuesAtPath(() => loadRelayConfigText(text, ENV, '/tmp'), path);

const refusedAt = (text: string, path: string, message: string) =>
  assert.deepEqual(issuesAt(text, path), [{ code: 'config.validation_error', message }], path);
const loads = (text: string, path: string) =>
  assert.doesNotThrow(() => loadRelayConfigText(text, ENV, '/tmp'), path);
/** `path` refuses `over` and loads `limit`. */
const bounded = (path: string, limit: unknown, over: unknown, message: string) => {
  refusedAt(withValue(path, over), path, message);
  loads(withValue(path, limit), path);
};

const GIB = 1024 ** 3;
const TABLE = 'datasets.0.tables.0';
const FIELD = `${TABLE}.schema.fields.0`;
const ENTITY = 'datasets.0.entities.0';
const AGGREGATE = 'datasets.0.aggregates.0';

describe('relay config bounds', () => {
  it('caps a CSV or Parquet source at 1 TiB and an XLSX source, read whole into memory, at 2 GiB', () => {
    bounded('server.max_source_file_bytes', 1024 * GIB, 1024 * GIB + 1, `must be <= ${1024 * GIB}`);
    bounded('server.xlsx_max_file_bytes', 2 * GIB, 2 * GIB + 1, `must be <= ${2 * GIB}`);
  });

  it('caps the minimum cell and group sizes of an aggregate at one million', () => {
    for (const key of ['min_cell_size', 'min_group_size']) {
      bounded(`${AGGREGATE}.disclosure_control.${key}`, 1_000_000, 1_000_001, 'must be <= 1000000');
    }
  });

  it('limits an API key to 1,000 scopes of at most 256 characters, as an OIDC scope_map', () => {
    const scopes = (n: number) => Array.from({ length: n }, () => 'people:rows');
    bounded('auth.api_keys.0.scopes', scopes(1000), scopes(1001), 'must list at most 1000 items');
    // A scope the entity declares, long enough to pass the limit.
    const scope = (n: number) => `people:${'x'.repeat(n - 'people:'.length)}`;
    const withScope = (scope: string) =>
      withValue('auth.api_keys.0.scopes', [scope]).replace(
        '"table":"persons"',
        `"table":"persons","access":{"read_scope":"${scope}"}`,
      );
    refusedAt(withScope(scope(257)), 'auth.api_keys.0.scopes.0', 'must be at most 256 characters');
    loads(withScope(scope(256)), 'auth.api_keys.0.scopes.0');
  });

  it('limits ids and names, which travel in paths, scopes, metrics labels and audit records, to 128 characters', () => {
    const id = (n: number) => `i${'x'.repeat(n - 1)}`;
    const ID = 'must be at most 128 characters';
    /** CONFIG with every quoted `name` replaced by `value`, so that what refers to it follows. */
    const renamed = (name: string) => (value: string) =>
      JSON.stringify(CONFIG).replaceAll(`"${name}"`, `"${value}"`).replaceAll(`"${name}:`, `"${value}:`);
    const at = (path: string) => (value: string) => withValue(path, value);
    const cases: [text: (value: string) => string, path: string][] = [
      [renamed('people'), 'datasets.0.id'],
      [renamed('persons'), `${TABLE}.id`],
      [renamed('person'), `${ENTITY}.name`],
      [renamed('national_id'), `${ENTITY}.fields.0.name`],
      [at(`${ENTITY}.relationships.0.name`), `${ENTITY}.relationships.0.name`],
      [at(`${AGGREGATE}.id`), `${AGGREGATE}.id`],
      [at(`${AGGREGATE}.dimensions.0.id`), `${AGGREGATE}.dimensions.0.id`],
      [at(`${AGGREGATE}.indicators.0.id`), `${AGGREGATE}.indicators.0.id`],
      [at('auth.api_keys.0.id'), 'auth.api_keys.0.id'],
    ];
    for (const [text, path] of cases) {
      refusedAt(text(id(129)), path, ID);
      loads(text(id(128)), path);
    }
  });

  it('refuses a column that would be a public field under a name past 128 characters', () => {
    const column = (n: number) => `c${'x'.repeat(n - 1)}`;
    // The entity lists no `fields`: its one column is its one public field.
    const text = (name: string) => {
      const config = JSON.parse(JSON.stringify(CONFIG).replaceAll('"national_id"', `"${name}"`));
      delete config.datasets[0].entities[0].fields;
      return JSON.stringify(config);
    };
    const issues = issuesAt(text(column(129)), `${ENTITY}.fields`);
    assert.equal(issues.length, 1, JSON.stringify(issues));
    assert.match(issues[0]?.message ?? '', /would be a public field.*at most 128 characters/);
    loads(text(column(128)), `${ENTITY}.fields`);
  });

  it('refuses an XLSX header row past the last row a sheet can have', () => {
    const path = 'datasets.0.tables.1.source.format.xlsx.header_row';
    bounded(path, 1_048_576, 1_048_577, 'must be <= 1048576');
  });

  it('limits the length of the texts, addresses and paths the relay shows or reads', () => {
    const x = (n: number) => 'x'.repeat(n);
    const iri = (n: number) => `https://v.example/${x(n - 18)}`;
    const csv = (n: number) => `${x(n - 4)}.csv`;
    const cases: [path: string, value: (n: number) => string, max: number][] = [
      ['catalog.title', x, 512],
      ['catalog.description', x, 4096],
      ['catalog.publisher', x, 512],
      ['catalog.publisher_iri', iri, 2048],
      ['catalog.base_url', iri, 2048],
      ['vocabularies.ex', iri, 2048],
      ['datasets.0.title', x, 512],
      ['datasets.0.description', x, 4096],
      ['datasets.0.owner', x, 512],
      ['datasets.0.status', iri, 2048],
      [`${TABLE}.source.path`, csv, 4096],
      ['datasets.0.tables.1.source.format.xlsx.sheet', x, 256],
      [`${FIELD}.description`, x, 4096],
      [`${FIELD}.concept_uri`, iri, 2048],
      [`${FIELD}.codelist`, iri, 2048],
      [`${FIELD}.unit`, x, 256],
      [`${FIELD}.language`, x, 256],
      [`${ENTITY}.title`, x, 512],
      [`${ENTITY}.description`, x, 4096],
      [`${ENTITY}.concept_uri`, iri, 2048],
      [`${ENTITY}.fields.0.description`, x, 4096],
      [`${ENTITY}.fields.0.concept_uri`, iri, 2048],
      [`${ENTITY}.fields.0.codelist`, iri, 2048],
      [`${ENTITY}.fields.0.unit`, x, 256],
      [`${ENTITY}.fields.0.language`, x, 256],
      [`${ENTITY}.relationships.0.concept_uri`, iri, 2048],
      [`${AGGREGATE}.title`, x, 512],
      [`${AGGREGATE}.description`, x, 4096],
      [`${AGGREGATE}.dimensions.0.label`, x, 512],
      [`${AGGREGATE}.dimensions.0.codelist`, iri, 2048],
      [`${AGGREGATE}.indicators.0.label`, x, 512],
      [`${AGGREGATE}.indicators.0.unit_measure`, x, 256],
      ['server.cache_dir', x, 4096],
      ['instance.id', x, 256],
      ['instance.environment', x, 256],
      ['instance.owner', x, 512],
      ['instance.jurisdiction', iri, 2048],
    ];
    for (const [path, value, max] of cases) {
      bounded(path, value(max), value(max + 1), `must be at most ${max} characters`);
    }
    // A manifest path within the limit is read, and /tmp holds none: only the refusal is shown.
    refusedAt(
      withValue('metadata.source.path', x(4097)),
      'metadata.source.path',
      'must be at most 4096 characters',
    );
  });
});
