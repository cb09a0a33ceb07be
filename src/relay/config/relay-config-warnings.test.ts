// The warnings a relay config loads with: aggregates whose groups list the values an entity guards with
// `api.required_filters`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprintOf } from '../../platform/auth/api-key.ts';
import { loadRelayConfigText } from './load-relay-config.ts';

const ENV = {
  READER_HASH: fingerprintOf('reader-key'),
  AUDIT_SECRET: 'audit-secret-for-warning-tests-0123456',
};

interface Case {
  /** The `disclosure_control` mapping of the aggregate, as YAML flow text. */
  readonly control?: string;
  /** The dimension's field. */
  readonly field?: string;
  /** The `api.required_filters` of the person entity. */
  readonly personRequires?: readonly string[];
  /** The `api.required_filters` of the household entity. */
  readonly householdRequires?: readonly string[];
  readonly noAggregates?: boolean;
}

function configText(c: Case): string {
  const personRequires = c.personRequires ?? ['national_id'];
  const householdRequires = c.householdRequires ?? ['household_id'];
  const filters = (fields: readonly string[]) =>
    `{ required_filters: [${fields.join(', ')}], allowed_filters: [${fields.map((f) => `{ field: ${f}, ops: [eq] }`).join(', ')}] }`;
  const aggregates = c.noAggregates
    ? ''
    : `    aggregates:
      - id: by_person
        source_entity: person
        dimensions:
          - { id: who, field: ${c.field ?? 'national_id'} }
          - { id: area, field: district }
        indicators:
          - { id: people, function: count }
        disclosure_control: ${c.control ?? '{ min_cell_size: 1 }'}
`;
  return `server: { bind: 127.0.0.1:4242 }
catalog: { title: T, base_url: https://relay.example.org, publisher: P }
auth:
  mode: api_key
  api_keys:
    - { id: reader, fingerprint: { provider: env, name: READER_HASH }, scopes: [people:rows, people:aggregate] }
audit: { sink: stdout, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: people
    title: People
    tables:
      - id: persons
        source: { type: file, path: persons.csv }
        primary_key: national_id
        schema:
          fields:
            - { name: national_id, type: string, nullable: false }
            - { name: household_id, type: string }
            - { name: district, type: string }
      - id: households
        source: { type: file, path: households.csv }
        primary_key: household_id
        schema:
          fields:
            - { name: household_id, type: string, nullable: false }
            - { name: district, type: string }
    entities:
      - name: person
        table: persons
        api: ${filters(personRequires)}
        relationships:
          - { name: household, kind: belongs_to, target: household, foreign_key: household_id }
      - name: household
        table: households
        api: ${filters(householdRequires)}
${aggregates}`;
}

const warningsOf = (c: Case) => loadRelayConfigText(configText(c), ENV, '/tmp').warnings;

describe('relay config warnings: aggregates grouping by a required-filter field', () => {
  it('warns when the minimum cell size is 1, naming ids and field only', () => {
    const warnings = warningsOf({ control: '{ min_cell_size: 1 }' });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    const warning = warnings[0] as string;
    assert.match(warning, /dataset people, aggregate by_person: dimension who groups by national_id/);
    assert.match(
      warning,
      /entity person requires an equality filter on national_id \(api\.required_filters\)/,
    );
    assert.match(warning, /min_cell_size is 1/);
    assert.match(warning, /anyone with the aggregate scope can list every national_id of person/);
    assert.match(warning, /2 or more with suppression omit, or drop the dimension/);
  });

  it('warns when min_group_size is 1, overriding a larger min_cell_size, and names min_group_size', () => {
    const warnings = warningsOf({ control: '{ min_cell_size: 5, min_group_size: 1 }' });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0] as string, /min_group_size is 1/);
  });

  for (const suppression of ['mask', 'null']) {
    it(`warns when suppression is ${suppression}, which keeps the keys of small groups`, () => {
      const warnings = warningsOf({ control: `{ min_cell_size: 5, suppression: "${suppression}" }` });
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(
        warnings[0] as string,
        new RegExp(`suppression ${suppression} keeps the keys of small groups`),
      );
      assert.doesNotMatch(warnings[0] as string, /is 1/);
    });
  }

  it('names both reasons when both hold, in one warning', () => {
    const warnings = warningsOf({ control: '{ min_cell_size: 1, suppression: mask }' });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0] as string, /min_cell_size is 1 and suppression mask keeps the keys/);
  });

  it('warns on a field reached through belongs_to when its target entity requires it', () => {
    const warnings = warningsOf({ field: 'household.household_id', personRequires: ['national_id'] });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /dimension who groups by household\.household_id, .*entity household requires an equality filter on household_id/,
    );
    assert.match(warnings[0] as string, /list every household_id of household/);
  });

  it('does not warn with a minimum cell size of 2 and suppression omit', () => {
    assert.deepEqual(warningsOf({ control: '{ min_cell_size: 2, suppression: omit }' }), []);
    assert.deepEqual(warningsOf({ control: '{ min_cell_size: 1, min_group_size: 2 }' }), []);
    // The defaults: 5, omit.
    assert.deepEqual(warningsOf({ control: '{}' }), []);
  });

  it('does not warn when the grouped field is not a required filter of the source entity', () => {
    assert.deepEqual(warningsOf({ field: 'district' }), []);
    assert.deepEqual(
      warningsOf({ field: 'household_id', personRequires: ['national_id'], householdRequires: [] }),
      [],
    );
  });

  it('warns on the foreign key of a belongs_to whose target requires its key: the key holds the same values', () => {
    const warnings = warningsOf({ field: 'household_id', personRequires: ['national_id'] });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /dimension who groups by household_id, .*entity household requires an equality filter on household_id/,
    );
    assert.match(warnings[0] as string, /list every household_id of household/);
  });

  it('does not warn on a relationship field its target entity does not require', () => {
    assert.deepEqual(warningsOf({ field: 'household.district' }), []);
  });

  it('does not warn on a relationship field named like a required field of the source entity only', () => {
    assert.deepEqual(
      warningsOf({
        field: 'household.household_id',
        personRequires: ['household_id', 'national_id'],
        householdRequires: [],
      }),
      [],
    );
  });

  it('does not warn without aggregates', () => {
    assert.deepEqual(warningsOf({ noAggregates: true }), []);
  });
});
