// Every size, count and free-text string of a relay config has an upper bound: a value past it is refused at load, at
// its path, rather than loading and misbehaving (or filling every metadata page) once it is used. The limit loads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AGGREGATE,
  bounded,
  CONFIG,
  ENTITY,
  FIELD,
  GIB,
  issuesAt,
  loads,
  refusedAt,
  TABLE,
  withValue,
} from './relay-config-test-support.ts';

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

  it('caps a PostgreSQL query and change token statement at 16,384 characters', () => {
    // Padded with spaces, which the statement checks let through.
    const statement = (n: number) => `SELECT national_id FROM persons${' '.repeat(n - 31)}`;
    for (const key of ['query', 'change_token_sql']) {
      const path = `${TABLE}.source.${key}`;
      const source = (text: string) =>
        withValue(`${TABLE}.source`, { type: 'postgres', connection_env: 'PG_URL', [key]: text });
      assert.deepEqual(issuesAt(source(statement(16_384)), path), [], path);
      assert.deepEqual(issuesAt(source(statement(16_385)), path), [
        { code: 'config.validation_error', message: 'must be at most 16384 characters' },
      ]);
    }
  });

  it('refuses a scope an entity or aggregate requires past 256 characters, which no key could hold', () => {
    const scope = (n: number) => `people:${'x'.repeat(n - 'people:'.length)}`;
    const keys = ['metadata_scope', 'read_scope', 'aggregate_scope', 'evidence_verification_scope'];
    const paths = [
      ...keys.map((key) => `${ENTITY}.access.${key}`),
      ...['metadata_scope', 'aggregate_scope'].map((key) => `${AGGREGATE}.access.${key}`),
    ];
    for (const path of paths) bounded(path, scope(256), scope(257), 'must be at most 256 characters');
  });

  it('reports every value past its bound at once, each at its path', () => {
    const config = JSON.parse(withValue(`${ENTITY}.access.read_scope`, `people:${'x'.repeat(250)}`));
    config.datasets[0].aggregates[0].access = { aggregate_scope: `people:${'x'.repeat(250)}` };
    config.vocabularies = { [`v${'x'.repeat(128)}`]: 'https://v.example/' };
    const text = JSON.stringify(config);
    assert.equal(issuesAt(text, `${ENTITY}.access.read_scope`).length, 1);
    assert.equal(issuesAt(text, `${AGGREGATE}.access.aggregate_scope`).length, 1);
    assert.equal(issuesAt(text, `vocabularies.v${'x'.repeat(128)}`).length, 1);
  });

  it('limits a vocabularies prefix to 128 characters, as an id', () => {
    const prefix = (n: number) => `v${'x'.repeat(n - 1)}`;
    const text = (name: string) => withValue('vocabularies', { [name]: 'https://v.example/' });
    refusedAt(text(prefix(129)), `vocabularies.${prefix(129)}`, 'key must be at most 128 characters');
    loads(text(prefix(128)), 'vocabularies');
  });

  it('limits a declared column name, which the names referring to it must match, to 512 characters', () => {
    const column = (n: number) => `c${'x'.repeat(n - 1)}`;
    // The sheet table, which no entity serves: its column names no public field.
    const text = (name: string) => {
      const config = JSON.parse(withValue('datasets.0.tables.1.primary_key', name));
      config.datasets[0].tables[1].schema.fields[0].name = name;
      return JSON.stringify(config);
    };
    const path = 'datasets.0.tables.1.schema.fields.0.name';
    refusedAt(text(column(513)), path, 'must be at most 512 characters');
    loads(text(column(512)), path);
  });

  it('refuses an XLSX data_range reaching past the last column or row a sheet has', () => {
    const path = 'datasets.0.tables.1.source.format.xlsx.data_range';
    const message = 'must lie within a sheet: columns A to XFD, rows 1 to 1048576';
    for (const range of ['A1:XFE2', 'A1:B1048577', 'A0:B2', `A1:B${'9'.repeat(400)}`, 'AAAAAAAA1:B2']) {
      refusedAt(withValue(path, range), path, message);
    }
    loads(withValue(path, 'A1:XFD1048576'), path);
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
