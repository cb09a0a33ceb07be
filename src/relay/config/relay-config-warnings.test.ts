// The warnings a relay config loads with: aggregates whose group keys or one-row measures show the values an entity
// guards with `api.required_filters`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { warningsOf } from './relay-config-warnings-test-support.ts';

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

describe('relay config warnings: a dimension whose values several rows share', () => {
  it('warns on a required foreign key even when small groups are omitted: every value that many rows hold is a group key', () => {
    const warnings = warningsOf({
      field: 'household_id',
      control: '{ min_cell_size: 5, suppression: omit }',
    });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    const warning = warnings[0] as string;
    assert.match(
      warning,
      /dimension who groups by household_id, and entity household requires an equality filter on household_id/,
    );
    assert.match(warning, /groups of 5 or more rows show their keys/);
    assert.match(warning, /list every household_id of household that 5 or more rows of person hold/);
    assert.match(warning, /drop the dimension/);
    assert.doesNotMatch(warning, /2 or more with suppression omit/);
  });

  it('warns on a required field of the source that is not its primary key, under omit', () => {
    const warnings = warningsOf({
      field: 'household_id',
      personRequires: ['household_id'],
      householdRequires: [],
      control: '{ min_cell_size: 3 }',
    });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0] as string, /entity person requires an equality filter on household_id/);
    assert.match(warnings[0] as string, /every household_id of person that 3 or more rows of person hold/);
  });

  it('warns on relationship.field under omit: many persons share one household', () => {
    const warnings = warningsOf({ field: 'household.household_id', control: '{}' });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0] as string, /groups of 5 or more rows show their keys/);
  });

  it('advises dropping the dimension, not a larger minimum, when the minimum is also 1', () => {
    const warnings = warningsOf({ field: 'household_id', control: '{ min_cell_size: 1 }' });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0] as string, /as min_cell_size is 1, .*: drop the dimension/);
    assert.doesNotMatch(warnings[0] as string, /2 or more with suppression omit/);
  });
});

describe('relay config warnings: a field served from the column of a required filter', () => {
  // A table's primary key is served by exactly one field, so only other columns can have a second name.
  const aliases = ['{ name: hh, from: household_id }'];

  it('warns on a dimension over another name of the required column, naming both', () => {
    const warnings = warningsOf({
      personAliases: aliases,
      personRequires: ['national_id', 'household_id'],
      householdRequires: [],
      field: 'hh',
    });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /dimension who groups by hh \(served from the column of household_id\), and entity person requires an equality filter on household_id/,
    );
    assert.match(warnings[0] as string, /list every household_id of person/);
  });

  it('warns on another name of a belongs_to foreign key whose target requires its key', () => {
    const warnings = warningsOf({ personAliases: aliases, field: 'hh', control: '{}' });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /groups by hh \(served from the column of household_id\), and entity household requires an equality filter on household_id/,
    );
  });

  it('does not warn on another name of a column no required filter reads', () => {
    assert.deepEqual(warningsOf({ personAliases: ['{ name: area2, from: district }'], field: 'area2' }), []);
    assert.deepEqual(warningsOf({ personAliases: aliases, field: 'hh', householdRequires: [] }), []);
  });
});

describe('relay config warnings: min, max and median of a required-filter field', () => {
  const integerIds = { householdIdType: 'integer' as const, control: '{}', field: 'district' };

  for (const fn of ['min', 'max', 'median']) {
    it(`warns on ${fn} of the foreign key whose target requires its key, whatever the disclosure control`, () => {
      const warnings = warningsOf({
        ...integerIds,
        control: '{ min_cell_size: 10, suppression: omit }',
        measures: [`{ id: some_household, function: ${fn}, column: household_id }`],
      });
      assert.equal(warnings.length, 1, warnings.join('\n'));
      const warning = warnings[0] as string;
      assert.match(
        warning,
        new RegExp(
          `dataset people, aggregate by_person: measure some_household is the ${fn} of household_id, and entity household requires an equality filter on household_id \\(api\\.required_filters\\)`,
        ),
      );
      assert.match(warning, /one row's value/);
      assert.match(
        warning,
        /anyone with the aggregate scope can read a household_id of household for every group shown/,
      );
      assert.match(warning, /drop the measure/);
    });
  }

  it('warns on a measure through a belongs_to and on another name of the column', () => {
    const warnings = warningsOf({
      ...integerIds,
      personAliases: ['{ name: hh, from: household_id }'],
      measures: [
        '{ id: top_household, function: max, column: household.household_id }',
        '{ id: low_household, function: min, column: hh }',
      ],
    });
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /measure top_household is the max of household\.household_id, and entity household/,
    );
    assert.match(
      warnings[1] as string,
      /measure low_household is the min of hh \(served from the column of household_id\), and entity household/,
    );
  });

  it('warns on a required field of the source entity itself', () => {
    const warnings = warningsOf({
      ...integerIds,
      personRequires: ['household_id'],
      householdRequires: [],
      measures: ['{ id: some_household, function: median, column: household_id }'],
    });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0] as string, /entity person requires an equality filter on household_id/);
  });

  it("does not warn on measures that are not one row's value, or on fields no entity requires", () => {
    const measures = ['sum', 'avg', 'count', 'count_distinct', 'stddev'].map(
      (fn) => `{ id: m_${fn}, function: ${fn}, column: household_id }`,
    );
    assert.deepEqual(warningsOf({ ...integerIds, measures }), []);
    assert.deepEqual(
      warningsOf({
        ...integerIds,
        householdRequires: [],
        measures: ['{ id: top_household, function: max, column: household_id }'],
      }),
      [],
    );
  });
});
