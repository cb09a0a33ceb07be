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
});
