import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isProblem } from '../../platform/problem/problem.ts';
import type { ClaimConfig, DisclosureLevel } from '../config/schema.ts';
import {
  checkStillDisclosable,
  resolveDisclosure,
  stillDisclosable,
  viewClaim,
} from './resolve-disclosure.ts';

function claim(
  allowed: DisclosureLevel[],
  fallback: DisclosureLevel,
  downgrade: 'deny' | 'default' | 'redacted',
) {
  return { id: 'c', disclosure: { default: fallback, allowed, downgrade } } as unknown as ClaimConfig;
}

describe('disclosure policy', () => {
  it('uses the claim default when nothing is requested, and an allowed level as requested', () => {
    assert.equal(
      resolveDisclosure(claim(['predicate', 'value'], 'predicate', 'deny'), undefined),
      'predicate',
    );
    assert.equal(resolveDisclosure(claim(['predicate', 'value'], 'predicate', 'deny'), 'value'), 'value');
  });

  it('downgrade matrix: deny -> 403, default -> the default, redacted -> redacted', () => {
    const matrix: [
      DisclosureLevel[],
      DisclosureLevel,
      'deny' | 'default' | 'redacted',
      DisclosureLevel,
      string | DisclosureLevel,
    ][] = [
      [['predicate'], 'predicate', 'deny', 'value', 'claim.disclosure_not_allowed'],
      [['predicate'], 'predicate', 'default', 'value', 'predicate'],
      [['predicate'], 'predicate', 'redacted', 'value', 'redacted'],
      [['redacted'], 'redacted', 'deny', 'predicate', 'claim.disclosure_not_allowed'],
      [['redacted'], 'redacted', 'default', 'value', 'redacted'],
      [['value', 'predicate'], 'value', 'redacted', 'redacted', 'redacted'],
      // The default never answers with more than was asked: a caller asking less keeps its data minimised.
      [['value'], 'value', 'default', 'predicate', 'claim.disclosure_not_allowed'],
      [['value'], 'value', 'default', 'redacted', 'claim.disclosure_not_allowed'],
      [['predicate'], 'predicate', 'default', 'redacted', 'claim.disclosure_not_allowed'],
    ];
    for (const [allowed, fallback, downgrade, requested, expected] of matrix) {
      let outcome: string;
      try {
        outcome = resolveDisclosure(claim(allowed, fallback, downgrade), requested);
      } catch (error) {
        assert.ok(isProblem(error));
        assert.equal(error.status, 403);
        outcome = error.code;
      }
      assert.equal(outcome, expected, `${allowed}/${downgrade} asked ${requested}`);
    }
  });

  it('views: value shows the value, predicate only the outcome, redacted neither', () => {
    const c = claim(['value'], 'value', 'deny');
    assert.deepEqual(viewClaim(c, true, 'value'), { value: true, satisfied: true, disclosure: 'value' });
    assert.deepEqual(viewClaim(c, 42, 'value'), { value: 42, satisfied: null, disclosure: 'value' });
    assert.deepEqual(viewClaim(c, false, 'predicate'), {
      value: false,
      satisfied: false,
      disclosure: 'predicate',
    });
    // A field the source left null: the outcome is unknown, not false (`satisfied` is a boolean by contract).
    assert.deepEqual(viewClaim(c, null, 'predicate'), {
      value: null,
      satisfied: false,
      disclosure: 'predicate',
    });
    // Never more than the outcome: whatever else reaches a predicate view stays out of the answer.
    for (const leaked of [42, 'FAKE-1', { deceased: false }])
      assert.deepEqual(viewClaim(c, leaked, 'predicate'), {
        value: null,
        satisfied: false,
        disclosure: 'predicate',
      });
    assert.deepEqual(viewClaim(c, 'FAKE-1', 'redacted'), {
      value: null,
      satisfied: null,
      disclosure: 'redacted',
      redacted_fields: ['c'],
    });
    assert.deepEqual(viewClaim(c, true, 'redacted'), {
      value: null,
      satisfied: null,
      disclosure: 'redacted',
      redacted_fields: ['c'],
    });
  });

  it('a stored level stays answerable while an allowed level discloses as much; redacted always', () => {
    const cases: [DisclosureLevel[], DisclosureLevel, boolean][] = [
      [['value'], 'value', true],
      [['predicate'], 'value', false],
      [['redacted'], 'value', false],
      [['value'], 'predicate', true],
      [['predicate', 'redacted'], 'predicate', true],
      [['redacted'], 'predicate', false],
      [['predicate'], 'redacted', true],
      [['value'], 'redacted', true],
    ];
    for (const [allowed, level, expected] of cases) {
      assert.equal(stillDisclosable(claim(allowed, allowed[0] as DisclosureLevel, 'deny'), level), expected);
    }
  });

  it('refuses a stored level that is withdrawn or not a level at all (a record altered since), naming the claim', () => {
    const policy = claim(['predicate'], 'predicate', 'redacted');
    checkStillDisclosable(policy, 'predicate');
    checkStillDisclosable(policy, 'redacted');
    for (const level of ['value', 'everything', 'toString', undefined, null]) {
      assert.throws(
        () => checkStillDisclosable(policy, level),
        (error: unknown) =>
          isProblem(error) && error.code === 'claim.disclosure_not_allowed' && error.extras.claim_id === 'c',
      );
    }
  });
});
