import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../platform/clock.ts';
import { createMemoryEvaluationStore } from './create-memory-evaluation-store.ts';
import { evaluation, evaluationStoreContract } from './evaluation-store.contract.ts';

describe('memory evaluation store', () => {
  evaluationStoreContract(async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    return {
      store: createMemoryEvaluationStore({ clock, maxEntries: 100 }),
      advance: clock.advance,
      now: clock.now,
    };
  });

  it('drops the oldest evaluations past max_memory_evaluations', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = createMemoryEvaluationStore({ clock, maxEntries: 2 });
    for (const id of ['A', 'B', 'C']) await store.put(evaluation(id, clock.now(), 60_000));
    assert.equal(await store.get('A', 'p1'), undefined);
    assert.ok(await store.get('B', 'p1'));
    assert.ok(await store.get('C', 'p1'));
  });

  it('keeps exactly the newest max_memory_evaluations through many evictions', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = createMemoryEvaluationStore({ clock, maxEntries: 500 });
    // Enough turnover to wrap the eviction queue's compaction several times.
    for (let index = 0; index < 5000; index++) await store.put(evaluation(`E${index}`, clock.now(), 60_000));
    assert.equal(await store.get('E4499', 'p1'), undefined);
    assert.ok(await store.get('E4500', 'p1'));
    assert.ok(await store.get('E4999', 'p1'));
    clock.advance(60_001);
    assert.equal(await store.purgeExpired(), 500, 'every kept evaluation expires together');
    assert.equal(await store.get('E4999', 'p1'), undefined);
  });

  it('purges expired evaluations on write, oldest first, and stops at the first live one', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = createMemoryEvaluationStore({ clock, maxEntries: 100 });
    await store.put(evaluation('old', clock.now(), 1_000));
    clock.advance(500);
    await store.put(evaluation('younger', clock.now(), 1_000));
    clock.advance(600);
    await store.put(evaluation('new', clock.now(), 1_000));
    assert.equal(await store.purgeExpired(), 0, 'the write already dropped the expired one');
    assert.ok(await store.get('younger', 'p1'));
    assert.ok(await store.get('new', 'p1'));
  });
});
