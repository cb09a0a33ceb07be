// `expand` and `fields` as parameters of the record and collection routes: empty lists, repeats and their mix.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';

describe('expand and fields parameters', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('answer an `expand` that names nothing as `fields` does: 400, never a read without expansion', async () => {
    for (const base of [`${HOUSEHOLDS}?limit=2&`, `${HOUSEHOLDS}/hh-1033?`]) {
      for (const value of ['', ',', '%20', '%20,%20,']) {
        assertProblem(
          await relay.get(`${base}expand=${value}`, { as: 'caseworker' }),
          400,
          'expand.not_allowed',
          '`expand` is empty',
        );
        assertProblem(
          await relay.get(`${base}fields=${value}`, { as: 'caseworker' }),
          400,
          'filter.unknown_field',
          '`fields` is empty',
        );
      }
      // A bare `expand` (no `=`) is the same empty value.
      assertProblem(await relay.get(`${base}expand`, { as: 'caseworker' }), 400, 'expand.not_allowed');
    }
  });

  it('project the entity’s own fields only; expansions follow them whole, names repeated count once', async () => {
    const response = await relay.get(
      `${HOUSEHOLDS}/hh-1033?fields=district,household_id,district&expand=payments,payments`,
      { as: 'caseworker' },
    );
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body), ['district', 'household_id', 'payments', '_expansion']);
    assert.ok(body.payments.length > 0 && Object.keys(body.payments[0]).includes('payment_status'));
    // A relationship is not a field, nor is a field of the expanded entity.
    for (const fields of ['household_id,payments', 'household_id,payment_status', 'payments.cycle']) {
      assertProblem(
        await relay.get(`${HOUSEHOLDS}/hh-1033?fields=${fields}&expand=payments`, { as: 'caseworker' }),
        400,
        'filter.unknown_field',
      );
    }
  });
});
