// Every list of a relay config has a most entries: a list generated or pasted by mistake is refused at load, at its
// path, while the longest list allowed loads. Declarations are at most 1,000 a list; fields, and the lists of names
// that must each match a field, at most 10,000 (more columns than a spreadsheet sheet or a PostgreSQL table holds).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { issuesAtPath } from '../../platform/config/config-issues-test-support.ts';
import { loadRelayConfigValue } from './load-relay-config.ts';
import {
  AGGREGATE,
  bounded,
  CONFIG,
  ENTITY,
  ENV,
  loads,
  refusedAt,
  withValue,
} from './relay-config-test-support.ts';

const times = <T>(n: number, item: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => item(i));
const [people] = CONFIG.datasets;
const [persons] = people?.tables ?? [];
const [person] = people?.entities ?? [];
const [counts] = people?.aggregates ?? [];

/** CONFIG with each list of declarations at 1,000 valid entries. */
const MANY = {
  ...CONFIG,
  vocabularies: Object.fromEntries(times(1000, (i) => [`p${i}`, `https://v${i}.example/`])),
  auth: {
    ...CONFIG.auth,
    api_keys: [
      ...CONFIG.auth.api_keys,
      ...times(999, (k) => ({ id: `k${k}`, fingerprint: { provider: 'env', name: `KEY_${k}` }, scopes: [] })),
    ],
  },
  datasets: [
    {
      ...people,
      conforms_to: times(1000, (i) => `https://v.example/${i}`),
      applicable_legislation: times(1000, (i) => `https://v.example/${i}`),
      tables: [...(people?.tables ?? []), ...times(998, (t) => ({ ...persons, id: `t${t}` }))],
      entities: [
        {
          ...person,
          relationships: times(1000, (r) => ({
            name: `r${r}`,
            kind: 'belongs_to',
            target: 'person',
            foreign_key: 'national_id',
          })),
          api: { allowed_expansions: times(1000, (r) => `r${r}`) },
        },
        ...times(999, (e) => ({ ...person, name: `e${e}` })),
      ],
      aggregates: [
        { ...counts, dimensions: times(1000, (d) => ({ id: `d${d}`, field: 'national_id' })) },
        ...times(999, (a) => ({ ...counts, id: `a${a}` })),
      ],
    },
    ...times(999, (d) => ({ id: `d${d}`, title: 'D' })),
  ],
};

/** `config` with one entry more in the list (or mapping) at `path`: a copy of its last one. */
function oneMore(config: object, path: string): object {
  const copy = structuredClone(config);
  let node = copy as Record<string, unknown>;
  for (const key of path.split('.')) node = node[key] as Record<string, unknown>;
  if (Array.isArray(node)) node.push(structuredClone(node.at(-1)));
  else node.extra = 'https://extra.example/';
  return copy;
}

// Loaded as values: YAML would take most of the time reading configs this long.
const load = (config: object) => () => loadRelayConfigValue(structuredClone(config), ENV, '/tmp', 'digest');

/** `config` loads, and each list at `paths` is refused at its path with one entry more. */
const refusedPastLimit = (config: object, paths: readonly string[], message: string) => {
  assert.doesNotThrow(load(config));
  for (const path of paths) {
    const issues = issuesAtPath(load(oneMore(config, path)), path);
    assert.deepEqual(issues, [{ code: 'config.validation_error', message }], path);
  }
};

describe('relay config list bounds', () => {
  it('limits each list of declarations to 1,000 entries', () => {
    const paths = [
      'auth.api_keys',
      'datasets',
      'datasets.0.conforms_to',
      'datasets.0.applicable_legislation',
      'datasets.0.tables',
      'datasets.0.entities',
      `${ENTITY}.relationships`,
      `${ENTITY}.api.allowed_expansions`,
      'datasets.0.aggregates',
      `${AGGREGATE}.dimensions`,
    ];
    refusedPastLimit(MANY, paths, 'must list at most 1000 items');
    refusedPastLimit(MANY, ['vocabularies'], 'must map at most 1000 prefixes');
  });

  it('limits the fields of a table or entity, and the names matching them, to 10,000 entries', () => {
    const columns = ['national_id', ...times(9999, (c) => `c${c}`)];
    const filters = columns.map((field) => ({ field, ops: ['eq'] }));
    const wide = {
      ...CONFIG,
      datasets: [
        {
          ...people,
          tables: [
            {
              ...persons,
              schema: { fields: columns.map((name) => ({ name, type: 'string', nullable: false })) },
            },
          ],
          entities: [
            {
              ...person,
              fields: columns.map((name) => ({ name })),
              api: { allowed_filters: filters, required_filters: columns },
            },
          ],
          aggregates: [{ ...counts, allowed_filters: filters, required_filters: columns }],
        },
      ],
    };
    const paths = [
      'datasets.0.tables.0.schema.fields',
      `${ENTITY}.fields`,
      `${ENTITY}.api.allowed_filters`,
      `${ENTITY}.api.required_filters`,
      `${AGGREGATE}.allowed_filters`,
      `${AGGREGATE}.required_filters`,
    ];
    refusedPastLimit(wide, paths, 'must list at most 10000 items');
  });

  it('lists each filter operator, and each disclosure method, at most once', () => {
    const ops = ['eq', 'in', 'gte', 'lte', 'between'];
    const filters = (ops: string[]) => [{ field: 'national_id', ops }];
    for (const path of [`${ENTITY}.api.allowed_filters`, `${AGGREGATE}.allowed_filters`]) {
      refusedAt(withValue(path, filters([...ops, 'eq'])), `${path}.0.ops`, 'must list at most 5 items');
      loads(withValue(path, filters(ops)), path);
    }
    const method = `${AGGREGATE}.disclosure_control.method`;
    bounded(method, ['k-anonymity'], ['k-anonymity', 'k-anonymity'], 'must list at most one item');
  });
});
