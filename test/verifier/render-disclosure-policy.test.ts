// A render is a disclosure of its own: a stored result is answered again only while the claim's current disclosure
// policy still allows its level, as it is answered only while the caller still holds the claim's scopes. Another
// instance on the shared PostgreSQL store (or a restart) whose configuration withdrew `value` must not keep serving
// values for the evaluation's retention.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TARGET, usePolicyChange } from './policy-change-fixture.ts';

describe('render after a disclosure policy change', () => {
  // person_alive as configured after `value` was withdrawn (redacted too, yet a redacted result discloses nothing).
  const verifiers = usePolicyChange('{ default: predicate, allowed: [predicate], downgrade: redacted }');

  async function evaluated(disclosure: string): Promise<string> {
    const made = await verifiers.first.evaluate({ target: TARGET, claims: ['person_alive'], disclosure });
    assert.equal(made.statusCode, 200, made.body);
    const [result] = JSON.parse(made.body).results;
    assert.equal(result.disclosure, disclosure);
    return result.evaluation_id;
  }

  it('refuses to render a value the claim no longer discloses: 403 claim.disclosure_not_allowed, no value', async () => {
    const id = await evaluated('value');
    // The instance that made it still renders it.
    assert.equal((await verifiers.first.post(`/v1/evaluations/${id}/render`, {})).statusCode, 200);
    const rendered = await verifiers.second.post(`/v1/evaluations/${id}/render`, {});
    assert.equal(rendered.statusCode, 403, rendered.body);
    const problem = JSON.parse(rendered.body);
    assert.equal(problem.code, 'claim.disclosure_not_allowed');
    assert.equal(problem.claim_id, 'person_alive');
    assert.equal(problem.results, undefined);
    const record = verifiers.second.auditRecords().at(-1) as Record<string, unknown>;
    assert.equal(record.endpoint_kind, 'render');
    assert.equal(record.status, 403);
    assert.equal(record.problem_code, 'claim.disclosure_not_allowed');
  });

  it('still renders what the policy allows, and a redacted result, which discloses nothing', async () => {
    for (const disclosure of ['predicate', 'redacted']) {
      const id = await evaluated(disclosure);
      const rendered = await verifiers.second.post(`/v1/evaluations/${id}/render`, {});
      assert.equal(rendered.statusCode, 200, rendered.body);
      assert.equal(JSON.parse(rendered.body).results[0].disclosure, disclosure);
    }
  });
});
