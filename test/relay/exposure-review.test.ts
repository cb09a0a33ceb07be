// Exposure controls seen by a caller holding a limited credential: what discovery may name when entities of one
// dataset carry metadata scopes of their own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';

const HOUSEHOLDS_ACCESS =
  '          - { name: payments, kind: has_many, target: payments, foreign_key: household_id }\n        access:\n          metadata_scope: social_protection:metadata';

describe('aggregate discovery through metadata scopes', () => {
  // Households now need a metadata scope of their own. payments_by_district reads them (its district dimension and
  // filter are `household.district`), so a caller that may not see households may not discover it by metadata.
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay({
      edit: (text) => {
        assert.ok(text.includes(HOUSEHOLDS_ACCESS));
        return text.replace(
          HOUSEHOLDS_ACCESS,
          HOUSEHOLDS_ACCESS.replace('social_protection:metadata', 'social_protection:households_meta'),
        );
      },
    });
  });
  after(() => relay.close());

  const PAYMENTS = '/v1/datasets/social_protection/aggregates/payments_by_district';

  it('hides an aggregate reading an entity whose metadata scope the caller lacks', async () => {
    // The entity schema already hides the relationship into households from this caller.
    const schema = await relay.get('/v1/datasets/social_protection/entities/payments/schema', {
      as: 'catalog_viewer',
    });
    assert.equal(schema.statusCode, 200, schema.body);
    assert.deepEqual(schema.json().relationships, []);
    for (const path of [
      '/v1/datasets/social_protection/aggregates',
      '/v1/datasets/social_protection/dimensions',
      '/v1/datasets/social_protection/measures',
      '/openapi.json',
    ]) {
      const response = await relay.get(path, { as: 'catalog_viewer' });
      assert.equal(response.statusCode, 200, response.body);
      assert.doesNotMatch(response.body, /household\.district|payments_by_district/, path);
    }
    assertProblem(
      await relay.get(`${PAYMENTS}/structure`, { as: 'catalog_viewer' }),
      404,
      'schema.unknown_aggregate',
    );
    const dcat = await relay.get('/metadata/dcat', { as: 'catalog_viewer' });
    assert.doesNotMatch(dcat.body, /payments_by_district/);
  });

  it('still shows it to the holder of its aggregate scope', async () => {
    const analyst = await relay.get(`${PAYMENTS}/structure`, { as: 'analyst' });
    assert.equal(analyst.statusCode, 200, analyst.body);
    assert.match(analyst.body, /household\.district/);
  });
});
