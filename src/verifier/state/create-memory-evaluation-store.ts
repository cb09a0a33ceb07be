// The in-process evaluation store: a map in insertion (= expiry) order, purged as it is used, bounded in size.
import type { Clock } from '../../platform/clock.ts';
import type { EvaluationStore, StoredEvaluation } from './evaluation-store.ts';

export function createMemoryEvaluationStore(options: { clock: Clock; maxEntries: number }): EvaluationStore {
  const entries = new Map<string, StoredEvaluation>();

  const purge = (): number => {
    const now = options.clock.now();
    let removed = 0;
    // One retention for all, so insertion order is expiry order and the scan stops at the first live entry.
    for (const [id, evaluation] of entries) {
      if (evaluation.expires_at > now) break;
      entries.delete(id);
      removed++;
    }
    return removed;
  };

  return {
    kind: 'memory',
    async put(evaluation) {
      purge();
      while (entries.size >= options.maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
      entries.set(evaluation.evaluation_id, evaluation);
    },
    async get(evaluationId, principalHash) {
      const evaluation = entries.get(evaluationId);
      if (!evaluation || evaluation.expires_at <= options.clock.now()) return undefined;
      return evaluation.principal_hash === principalHash ? evaluation : undefined;
    },
    async purgeExpired() {
      return purge();
    },
    async close() {
      entries.clear();
    },
  };
}
