// The behaviour every EvaluationStore must show; run against each implementation by its own test file.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { EvaluationStore, IdempotencyClaim, StoredEvaluation } from './evaluation-store.ts';

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
    results: [{ claim_id: 'alive', value: true, nested: { list: [1, 'two', null] } }],
    created_at: now,
    expires_at: now + retentionMs,
    request_hash: 'sha256:00',
  };
}

const RESPONSE = { status: 200, content_type: 'application/json', body: '{"batch_id":"B1"}' };

function claimOf(now: number, overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim {
  return {
    scope: 'p1:/v1/batch-evaluations:k1',
    requestHash: 'sha256:aa',
    owner: 'owner-1',
    leaseUntil: now + 30_000,
    expiresAt: now + 60_000,
    ...overrides,
  };
}

export function evaluationStoreContract(start: () => Promise<StoreUnderTest>): void {
  it('returns a stored evaluation to its principal only', async () => {
    const { store, now } = await start();
    try {
      assert.equal(await store.prepare(), true);
      assert.equal(await store.isReady(), true);
      const stored = evaluation('01J0000000000000000000000A', now(), 60_000);
      await store.put(stored);
      assert.deepEqual(await store.get(stored.evaluation_id, 'p1'), stored);
      // Key order included: a render answers the evaluation byte for byte.
      assert.equal(JSON.stringify(await store.get(stored.evaluation_id, 'p1')), JSON.stringify(stored));
      assert.equal(await store.get(stored.evaluation_id, 'p2'), undefined);
      assert.equal(await store.get('01J0000000000000000000000Z', 'p1'), undefined);
    } finally {
      await store.close();
    }
  });

  it('says whether it has been closed', async () => {
    const { store } = await start();
    try {
      assert.equal(store.isClosed(), false);
    } finally {
      await store.close();
    }
    assert.equal(store.isClosed(), true);
    // A second close (a stop asked twice, an embedding that closes what it was handed) is a no-op.
    await store.close();
    assert.equal(store.isClosed(), true);
  });

  it('stores any string JSON can carry, a lone surrogate included, and answers it unchanged', async () => {
    const { store, now } = await start();
    try {
      const base = evaluation('01J0000000000000000000000S', now(), 60_000);
      const stored = {
        ...base,
        results: [{ ...base.results[0], subject_type: 'person\ud800', nul: 'a\u0000b' }],
      };
      await store.putMany([stored, evaluation('01J0000000000000000000000T', now(), 60_000)]);
      assert.equal(JSON.stringify(await store.get(stored.evaluation_id, 'p1')), JSON.stringify(stored));
      assert.ok(await store.get('01J0000000000000000000000T', 'p1'));
    } finally {
      await store.close();
    }
  });

  it('stores the evaluations of a batch at once', async () => {
    const { store, now } = await start();
    try {
      const batch = ['01J00000000000000000000001', '01J00000000000000000000002'].map((id, index) =>
        evaluation(id, now(), 60_000, `p${index + 1}`),
      );
      await store.putMany(batch);
      await store.putMany([]);
      assert.deepEqual(await store.get(batch[0]?.evaluation_id as string, 'p1'), batch[0]);
      assert.deepEqual(await store.get(batch[1]?.evaluation_id as string, 'p2'), batch[1]);
    } finally {
      await store.close();
    }
  });

  it('forgets an evaluation once its retention has passed, and purges it', async () => {
    const { store, now, advance } = await start();
    try {
      await store.put(evaluation('01J0000000000000000000000B', now(), 60_000));
      await store.put(evaluation('01J0000000000000000000000C', now() + 30_000, 60_000));
      advance(60_000);
      assert.equal(await store.get('01J0000000000000000000000B', 'p1'), undefined);
      assert.ok(await store.get('01J0000000000000000000000C', 'p1'));
      assert.equal(await store.purgeExpired(), 1);
      advance(30_000);
      assert.equal(await store.purgeExpired(), 1);
    } finally {
      await store.close();
    }
  });

  it('gives an idempotency key to one request, then replays its response for the same request only', async () => {
    const { store, now } = await start();
    try {
      const first = claimOf(now());
      assert.deepEqual(await store.beginIdempotent(first), { kind: 'started' });
      // While it runs: the same request waits its turn, a different one conflicts.
      assert.deepEqual(await store.beginIdempotent({ ...first, owner: 'owner-2' }), { kind: 'in_progress' });
      assert.deepEqual(
        await store.beginIdempotent({ ...first, owner: 'owner-2', requestHash: 'sha256:bb' }),
        {
          kind: 'conflict',
        },
      );
      // Only the owner completes it.
      await store.completeIdempotent(first.scope, 'owner-2', { ...RESPONSE, body: 'forged' }, now() + 60_000);
      await store.completeIdempotent(first.scope, first.owner, RESPONSE, now() + 60_000);
      assert.deepEqual(await store.beginIdempotent({ ...first, owner: 'owner-3' }), {
        kind: 'replay',
        response: RESPONSE,
      });
      assert.deepEqual(
        await store.beginIdempotent({ ...first, owner: 'owner-3', requestHash: 'sha256:bb' }),
        {
          kind: 'conflict',
        },
      );
      // Keys are scoped: another caller's identical key is independent.
      assert.deepEqual(await store.beginIdempotent({ ...first, scope: 'p2:/v1/batch-evaluations:k1' }), {
        kind: 'started',
      });
      // The request that completed the key may withdraw it (its response was replaced after all); no other can.
      await store.abandonIdempotent(first.scope, 'owner-3');
      assert.equal((await store.beginIdempotent({ ...first, owner: 'owner-4' })).kind, 'replay');
      await store.abandonIdempotent(first.scope, first.owner);
      assert.deepEqual(await store.beginIdempotent({ ...first, owner: 'owner-4' }), { kind: 'started' });
    } finally {
      await store.close();
    }
  });

  it('frees a key whose request was abandoned or whose owner lease ran out, and expires replays', async () => {
    const { store, now, advance } = await start();
    try {
      const first = claimOf(now());
      assert.equal((await store.beginIdempotent(first)).kind, 'started');
      await store.abandonIdempotent(first.scope, 'someone-else');
      assert.equal((await store.beginIdempotent({ ...first, owner: 'o2' })).kind, 'in_progress');
      await store.abandonIdempotent(first.scope, first.owner);
      const second = claimOf(now(), { owner: 'o2', requestHash: 'sha256:bb' });
      assert.equal((await store.beginIdempotent(second)).kind, 'started');
      // The owner went away without a word: after its lease another request takes the key over.
      advance(30_000);
      const third = claimOf(now(), { owner: 'o3' });
      assert.equal((await store.beginIdempotent(third)).kind, 'started');
      await store.completeIdempotent(second.scope, second.owner, RESPONSE, now() + 60_000);
      assert.equal((await store.beginIdempotent({ ...third, owner: 'o4' })).kind, 'in_progress');
      await store.completeIdempotent(third.scope, third.owner, RESPONSE, now() + 60_000);
      assert.equal((await store.beginIdempotent({ ...third, owner: 'o4' })).kind, 'replay');
      advance(60_000);
      assert.equal(await store.purgeExpired(), 1);
      assert.equal((await store.beginIdempotent(claimOf(now(), { owner: 'o5' }))).kind, 'started');
    } finally {
      await store.close();
    }
  });

  it('never replays an expired response, purged or not: the key is new again, for any request', async () => {
    const { store, now, advance } = await start();
    try {
      const first = claimOf(now());
      assert.equal((await store.beginIdempotent(first)).kind, 'started');
      await store.completeIdempotent(first.scope, first.owner, RESPONSE, now() + 60_000);
      advance(60_000);
      // Not purged yet: expiry alone frees the key, for another request as for the same one.
      const other = claimOf(now(), { owner: 'o2', requestHash: 'sha256:bb' });
      assert.deepEqual(await store.beginIdempotent(other), { kind: 'started' });
      assert.deepEqual(await store.beginIdempotent({ ...other, owner: 'o3' }), { kind: 'in_progress' });
      await store.completeIdempotent(other.scope, other.owner, RESPONSE, now() + 60_000);
      advance(60_000);
      assert.deepEqual(await store.beginIdempotent(claimOf(now(), { owner: 'o4' })), { kind: 'started' });
    } finally {
      await store.close();
    }
  });
}
