// An idempotent replay answers a stored batch response again, so it is a disclosure of its own, as a render is: it
// is answered only while each claim still allows the level its results were made at. Another instance on the shared
// PostgreSQL store (or a restart) whose configuration withdrew `value`, and now downgrades a `value` request to
// `redacted`, must not keep replaying values for the key's retention.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestVerifier } from '../helpers/verifier-harness.ts';
import { TARGET, usePolicyChange } from './policy-change-fixture.ts';

describe('idempotent batch replay after a disclosure policy change', () => {
  // person_alive once `value` was withdrawn: a request for it is now answered redacted, not refused.
  const verifiers = usePolicyChange(
    '{ default: predicate, allowed: [predicate, redacted], downgrade: redacted }',
  );

  async function batch(verifier: TestVerifier, disclosure: string, key: string) {
    return verifier.post(
      '/v1/batch-evaluations',
      { items: [{ target: TARGET }], claims: ['person_alive'], disclosure },
      { headers: { 'idempotency-key': key } },
    );
  }

  it('refuses to replay a value the claim no longer discloses: 403 claim.disclosure_not_allowed, no value', async () => {
    const made = await batch(verifiers.first, 'value', 'replay-value-1');
    assert.equal(made.statusCode, 200, made.body);
    assert.equal(JSON.parse(made.body).items[0].claim_results[0].disclosure, 'value');
    // The instance that made it still replays it.
    const again = await batch(verifiers.first, 'value', 'replay-value-1');
    assert.equal(again.headers['idempotent-replayed'], 'true');

    const replayed = await batch(verifiers.second, 'value', 'replay-value-1');
    assert.equal(replayed.statusCode, 403, replayed.body);
    const problem = JSON.parse(replayed.body);
    assert.equal(problem.code, 'claim.disclosure_not_allowed');
    assert.equal(problem.claim_id, 'person_alive');
    assert.equal(problem.items, undefined);
    assert.equal(replayed.headers['idempotent-replayed'], undefined);
    const record = verifiers.second.auditRecords().at(-1) as Record<string, unknown>;
    assert.equal(record.endpoint_kind, 'batch_evaluate');
    assert.equal(record.status, 403);
    assert.equal(record.problem_code, 'claim.disclosure_not_allowed');
  });

  it('still replays what the policy allows', async () => {
    const made = await batch(verifiers.first, 'predicate', 'replay-predicate-1');
    assert.equal(made.statusCode, 200, made.body);
    const replayed = await batch(verifiers.second, 'predicate', 'replay-predicate-1');
    assert.equal(replayed.statusCode, 200, replayed.body);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.equal(replayed.body, made.body);
  });
});
