// The warnings a relay config loads with: relationships that walk from an entity anyone may list into one guarded
// by `api.required_filters` on the relationship's join field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { warningsOf } from './relay-config-warnings-test-support.ts';

const MEMBERS = '{ name: members, kind: has_many, target: person, foreign_key: household_id }';
const HEAD = '{ name: head, kind: has_one, target: person, foreign_key: household_id }';
const HOUSEHOLD = '{ name: household, kind: belongs_to, target: household, foreign_key: household_id }';

describe('relay config warnings: relationships from a freely listed entity into a guarded one', () => {
  it('warns on a has_many from an entity without required filters into one required to be filtered by the join', () => {
    const warnings = warningsOf({
      noAggregates: true,
      personRequires: ['household_id'],
      householdRequires: [],
      householdRelationships: [MEMBERS],
    });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    const warning = warnings[0] as string;
    assert.match(
      warning,
      /^dataset people, entity household: relationship members reads entity person by household_id, and person requires an equality filter on household_id \(api\.required_filters\)/,
    );
    assert.match(warning, /household can be listed without a filter/);
    assert.match(warning, /can read every person, one household_id per household listed/);
    assert.match(
      warning,
      /require a filter on household too \(api\.required_filters\), or drop the relationship$/,
    );
  });

  it('warns on a has_one the same way', () => {
    const warnings = warningsOf({
      noAggregates: true,
      personRequires: ['national_id', 'household_id'],
      householdRequires: [],
      householdRelationships: [HEAD],
    });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /entity household: relationship head reads entity person by household_id/,
    );
  });

  it('warns on a belongs_to from a freely listed entity into one that requires its key', () => {
    const warnings = warningsOf({ noAggregates: true, personRequires: [], personRelationships: [HOUSEHOLD] });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /entity person: relationship household reads entity household by household_id, and household requires an equality filter on household_id/,
    );
    assert.match(warnings[0] as string, /one household_id per person listed/);
    assert.match(warnings[0] as string, /require a filter on person too/);
  });

  it('warns once per relationship', () => {
    const both = warningsOf({
      noAggregates: true,
      personRequires: ['household_id'],
      householdRequires: [],
      householdRelationships: [MEMBERS, HEAD],
    });
    assert.equal(both.length, 2, both.join('\n'));
  });

  it('does not warn when the listing entity requires a filter of its own', () => {
    // Persons need a national_id before their household is reached: the walk needs the values the filter guards.
    assert.deepEqual(warningsOf({ noAggregates: true }), []);
    assert.deepEqual(
      warningsOf({
        noAggregates: true,
        personRequires: ['household_id'],
        householdRequires: ['district'],
        personRelationships: [],
        householdRelationships: [MEMBERS],
      }),
      [],
    );
  });

  it('does not warn on a relationship into an entity without required filters', () => {
    assert.deepEqual(
      warningsOf({
        noAggregates: true,
        personRequires: [],
        householdRequires: [],
        householdRelationships: [MEMBERS],
      }),
      [],
    );
  });
});
