// The behaviour every EvaluationStore must show; run against each implementation by its own test file.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { EvaluationStore, StoredEvaluation } from './evaluation-store.ts';

export interface StoreUnderTest {
  readonly store: EvaluationStore;
  /** Moves the store's clock forward. */
  advance(ms: number): void;
  readonly now: () => number;
}

export function evaluation(id: string, now: number, retentionMs: number, principal = 'p1'): StoredEvaluation {
  return {
    evaluation_id: id,
    principal_hash: principal,
    purpose: 'https://p.example/x',
    claim_ids: ['alive'],
    disclosure: 'predicate',
    format: 'application/vnd.ambit.claim-result+json',
    results: [{ claim_id: 'alive', value: true }],
    created_at: now,
    expires_at: now + retentionMs,
    request_hash: 'sha256:00',
  };
}

export function evaluationStoreContract(start: () => Promise<StoreUnderTest>): void {
  it('returns a stored evaluation to its principal only', async () => {
    const { store, now } = await start();
    const stored = evaluation('01J0000000000000000000000A', now(), 60_000);
    await store.put(stored);
    assert.deepEqual(await store.get(stored.evaluation_id, 'p1'), stored);
    assert.equal(await store.get(stored.evaluation_id, 'p2'), undefined);
    assert.equal(await store.get('01J0000000000000000000000Z', 'p1'), undefined);
    await store.close();
  });

  it('forgets an evaluation once its retention has passed, and purges it', async () => {
    const { store, now, advance } = await start();
    await store.put(evaluation('01J0000000000000000000000B', now(), 60_000));
    await store.put(evaluation('01J0000000000000000000000C', now() + 30_000, 60_000));
    advance(60_000);
    assert.equal(await store.get('01J0000000000000000000000B', 'p1'), undefined);
    assert.ok(await store.get('01J0000000000000000000000C', 'p1'));
    assert.equal(await store.purgeExpired(), 1);
    advance(30_000);
    assert.equal(await store.purgeExpired(), 1);
    await store.close();
  });
}
