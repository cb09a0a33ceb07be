import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../platform/clock.ts';
import {
  createMemoryEvaluationStore,
  evaluationBytes,
  type MemoryStoreLimits,
} from './create-memory-evaluation-store.ts';
import { evaluation, evaluationStoreContract } from './evaluation-store.contract.ts';
import type { EvaluationStore, StoredResponse } from './evaluation-store.ts';

function memoryStore(limits: Partial<MemoryStoreLimits> & Pick<MemoryStoreLimits, 'clock'>) {
  return createMemoryEvaluationStore({
    maxEntries: 100,
    maxEvaluationBytes: 268_435_456,
    maxIdempotencyRecords: 100,
    maxIdempotencyBytes: 1_048_576,
    ...limits,
  });
}

const response = (body: string): StoredResponse => ({ status: 200, content_type: 'application/json', body });

/** Claims key `key` and completes it with `body`. */
async function remember(store: EvaluationStore, now: number, key: string, body: string) {
  const scope = `p1:/v1/batch-evaluations:${key}`;
  const started = await store.beginIdempotent({
    scope,
    requestHash: `sha256:${key}`,
    owner: `owner-${key}`,
    leaseUntil: now + 30_000,
    expiresAt: now + 60_000,
  });
  assert.equal(started.kind, 'started');
  await store.completeIdempotent(scope, `owner-${key}`, response(body), now + 60_000);
}

/** What a second use of key `key` with the same request finds. */
async function reuse(store: EvaluationStore, now: number, key: string) {
  const outcome = await store.beginIdempotent({
    scope: `p1:/v1/batch-evaluations:${key}`,
    requestHash: `sha256:${key}`,
    owner: 'owner-again',
    leaseUntil: now + 30_000,
    expiresAt: now + 60_000,
  });
  return outcome.kind;
}

describe('memory evaluation store', () => {
  evaluationStoreContract(async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    return {
      store: memoryStore({ clock }),
      advance: clock.advance,
      now: clock.now,
    };
  });

  it('drops the oldest evaluations past max_memory_evaluations', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock, maxEntries: 2 });
    for (const id of ['A', 'B', 'C']) await store.put(evaluation(id, clock.now(), 60_000));
    assert.equal(await store.get('A', 'p1'), undefined);
    assert.ok(await store.get('B', 'p1'));
    assert.ok(await store.get('C', 'p1'));
  });

  it('keeps exactly the newest max_memory_evaluations through many evictions', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock, maxEntries: 500 });
    // Enough turnover to wrap the eviction queue's compaction several times.
    for (let index = 0; index < 5000; index++) await store.put(evaluation(`E${index}`, clock.now(), 60_000));
    assert.equal(await store.get('E4499', 'p1'), undefined);
    assert.ok(await store.get('E4500', 'p1'));
    assert.ok(await store.get('E4999', 'p1'));
    clock.advance(60_001);
    assert.equal(await store.purgeExpired(), 500, 'every kept evaluation expires together');
    assert.equal(await store.get('E4999', 'p1'), undefined);
  });

  it('drops the oldest evaluations past max_memory_evaluation_bytes, counting what their values hold', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const withValue = (id: string, value: unknown) => ({
      ...evaluation(id, clock.now(), 60_000),
      results: [{ claim_id: 'note', value }],
    });
    const big = 'x'.repeat(200_000);
    assert.ok(evaluationBytes(withValue('size', big)) >= 400_000);
    assert.ok(evaluationBytes(withValue('size', { list: [big] })) >= 800_000);
    assert.ok(evaluationBytes(withValue('size', true)) < 4096);
    const store = memoryStore({ clock, maxEvaluationBytes: 1_048_576 });
    for (const id of ['A', 'B', 'C', 'D']) await store.put(withValue(id, big));
    // About 400 KB each: two fit in 1 MiB, the oldest went first.
    assert.equal(await store.get('A', 'p1'), undefined);
    assert.equal(await store.get('B', 'p1'), undefined);
    assert.ok(await store.get('C', 'p1'));
    assert.ok(await store.get('D', 'p1'));
    // Small ones are held by the count limit only.
    for (let index = 0; index < 50; index++) await store.put(withValue(`S${index}`, true));
    assert.ok(await store.get('S0', 'p1'));
    // One larger than the whole budget is kept alone rather than refused.
    await store.put(withValue('HUGE', 'y'.repeat(600_000)));
    assert.ok(await store.get('HUGE', 'p1'));
  });

  it('keeps every evaluation of one batch past max_memory_evaluation_bytes, dropping older ones for it', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock, maxEntries: 10_000, maxEvaluationBytes: 1_048_576 });
    await store.put(evaluation('before', clock.now(), 60_000));
    // About 2.5 KB each: a thousand exceed 1 MiB, but the batch answer names every one of them.
    const batch = Array.from({ length: 1000 }, (_, index) => evaluation(`B${index}`, clock.now(), 60_000));
    await store.putMany(batch);
    for (const stored of batch) assert.ok(await store.get(stored.evaluation_id, 'p1'), stored.evaluation_id);
    assert.equal(await store.get('before', 'p1'), undefined);
    // The next write makes room again, the oldest first.
    await store.put(evaluation('after', clock.now(), 60_000));
    assert.equal(await store.get('B0', 'p1'), undefined);
    assert.ok(await store.get('after', 'p1'));
    assert.ok(await store.get('B999', 'p1'));
  });

  it('counts the identifier schemes and profile a target_ref echoes, once per evaluation', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    // What a caller may send: 20 schemes of 128 characters and a profile, echoed in every result's target_ref.
    const targetRef = {
      type: 'person',
      handle: 'rnref:v1:x',
      identifier_schemes: Array.from({ length: 20 }, (_, index) => `${index}`.padEnd(128, 's')),
      profile: 'p'.repeat(128),
    };
    const plain = (id: string) => evaluation(id, clock.now(), 60_000);
    const echoing = (id: string, results = 1) => ({
      ...plain(id),
      results: Array.from({ length: results }, () => ({
        claim_id: 'alive',
        value: true,
        target_ref: targetRef,
      })),
    });
    const text = 21 * 128;
    assert.ok(evaluationBytes(echoing('size')) >= evaluationBytes(plain('size')) + text);
    // One object shared by the results: held once, counted once.
    assert.ok(evaluationBytes(echoing('size', 3)) < evaluationBytes(plain('size')) + 3 * 1536 + 3 * text);
    const kept = async (make: (id: string) => ReturnType<typeof plain>) => {
      const store = memoryStore({ clock, maxEntries: 10_000, maxEvaluationBytes: 1_048_576 });
      for (let index = 0; index < 1000; index++) await store.put(make(`E${index}`));
      let count = 0;
      for (let index = 0; index < 1000; index++) if (await store.get(`E${index}`, 'p1')) count++;
      return count;
    };
    assert.ok((await kept(echoing)) * 2 <= (await kept(plain)), 'they hold twice as much memory at least');
  });

  it('purges expired evaluations on write, oldest first, and stops at the first live one', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock });
    await store.put(evaluation('old', clock.now(), 1_000));
    clock.advance(500);
    await store.put(evaluation('younger', clock.now(), 1_000));
    clock.advance(600);
    await store.put(evaluation('new', clock.now(), 1_000));
    assert.equal(await store.purgeExpired(), 0, 'the write already dropped the expired one');
    assert.ok(await store.get('younger', 'p1'));
    assert.ok(await store.get('new', 'p1'));
  });

  it('drops the oldest idempotency records past max_memory_idempotency_records', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock, maxIdempotencyRecords: 3 });
    for (let index = 0; index < 5000; index++) await remember(store, clock.now(), `k${index}`, '{}');
    for (const key of ['k4997', 'k4998', 'k4999'])
      assert.equal(await reuse(store, clock.now(), key), 'replay');
    assert.equal(await reuse(store, clock.now(), 'k4996'), 'started', 'dropped: runs afresh');
  });

  it('drops the oldest idempotency records past max_memory_idempotency_bytes, and keeps no response larger', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock, maxIdempotencyBytes: 100_000 });
    const body = `"${'x'.repeat(30_000)}"`;
    for (const key of ['a', 'b', 'c', 'd']) await remember(store, clock.now(), key, body);
    for (const key of ['b', 'c', 'd']) assert.equal(await reuse(store, clock.now(), key), 'replay');
    assert.equal(await reuse(store, clock.now(), 'a'), 'started', 'four responses exceed the bytes');
    await remember(store, clock.now(), 'huge', `"${'x'.repeat(100_000)}"`);
    assert.equal(
      await reuse(store, clock.now(), 'huge'),
      'started',
      'too large to keep: the key is released',
    );
    assert.equal(await reuse(store, clock.now(), 'd'), 'replay', 'and nothing else was dropped for it');
  });

  it('counts a response holding a character past Latin-1 at two bytes a character, as it is held', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock, maxIdempotencyBytes: 100_000 });
    // A name in Cyrillic makes the whole string one of two-byte characters: 60 KB in memory, not 30 KB.
    const body = `{"name":"Жанна","note":"${'x'.repeat(30_000)}"}`;
    for (const key of ['a', 'b']) await remember(store, clock.now(), key, body);
    assert.equal(await reuse(store, clock.now(), 'b'), 'replay');
    assert.equal(await reuse(store, clock.now(), 'a'), 'started', 'two such responses exceed the bytes');
    // Latin-1 text (accents) is held at one byte a character.
    const latin = `{"name":"Zoé","note":"${'x'.repeat(30_000)}"}`;
    for (const key of ['c', 'd', 'e']) await remember(store, clock.now(), key, latin);
    for (const key of ['c', 'd', 'e']) assert.equal(await reuse(store, clock.now(), key), 'replay');
  });

  it('counts a record once however often its key is released or taken over', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock, maxIdempotencyRecords: 2 });
    await remember(store, clock.now(), 'kept', '{}');
    for (let index = 0; index < 3000; index++) {
      const claim = {
        scope: 'p1:/v1/batch-evaluations:churn',
        requestHash: 'sha256:churn',
        owner: `o${index}`,
        leaseUntil: clock.now() + 30_000,
        expiresAt: clock.now() + 60_000,
      };
      assert.equal((await store.beginIdempotent(claim)).kind, 'started');
      await store.abandonIdempotent(claim.scope, claim.owner);
    }
    assert.equal(await reuse(store, clock.now(), 'kept'), 'replay');
  });

  it('holds no response of an idempotency record once the record has expired', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = memoryStore({ clock });
    for (let index = 0; index < 50; index++) await remember(store, clock.now(), `k${index}`, '{"items":[]}');
    assert.equal(store.heldIdempotencyResponses(), 50);
    clock.advance(61_000);
    // One expired key used again (taken afresh), the others dropped by the periodic purge.
    assert.equal(await reuse(store, clock.now(), 'k0'), 'started');
    await store.purgeExpired();
    assert.equal(await reuse(store, clock.now(), 'k1'), 'started');
    assert.equal(store.heldIdempotencyResponses(), 0);
  });
});
