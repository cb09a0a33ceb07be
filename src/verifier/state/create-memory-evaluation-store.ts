// The in-process state store: maps in insertion (= expiry) order, purged as they are used, bounded in size.
import type { Clock } from '../../platform/clock.ts';
import type {
  EvaluationStore,
  IdempotencyClaim,
  StoredEvaluation,
  StoredResponse,
} from './evaluation-store.ts';

interface IdempotencyEntry {
  readonly requestHash: string;
  owner: string | undefined;
  leaseUntil: number;
  expiresAt: number;
  response: StoredResponse | undefined;
}

export function createMemoryEvaluationStore(options: { clock: Clock; maxEntries: number }): EvaluationStore {
  const entries = new Map<string, StoredEvaluation>();
  const keys = new Map<string, IdempotencyEntry>();

  const purge = (): number => {
    const now = options.clock.now();
    let removed = 0;
    // One retention for all, so insertion order is expiry order and the scan stops at the first live entry.
    for (const [id, evaluation] of entries) {
      if (evaluation.expires_at > now) break;
      entries.delete(id);
      removed++;
    }
    // Idempotency records change expiry when they complete, so they are scanned in full.
    for (const [scope, entry] of keys) {
      if (entry.expiresAt <= now) {
        keys.delete(scope);
        removed++;
      }
    }
    return removed;
  };

  const put = (evaluation: StoredEvaluation) => {
    while (entries.size >= options.maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done) break;
      entries.delete(oldest.value);
    }
    entries.set(evaluation.evaluation_id, evaluation);
  };

  return {
    kind: 'memory',
    async prepare() {
      return true;
    },
    async isReady() {
      return true;
    },
    async put(evaluation) {
      purge();
      put(evaluation);
    },
    async putMany(evaluations) {
      purge();
      for (const evaluation of evaluations) put(evaluation);
    },
    async get(evaluationId, principalHash) {
      const evaluation = entries.get(evaluationId);
      if (!evaluation || evaluation.expires_at <= options.clock.now()) return undefined;
      return evaluation.principal_hash === principalHash ? evaluation : undefined;
    },
    async beginIdempotent(claim: IdempotencyClaim) {
      const now = options.clock.now();
      const existing = keys.get(claim.scope);
      const stale =
        !existing ||
        existing.expiresAt <= now ||
        (existing.response === undefined && existing.leaseUntil <= now);
      if (stale) {
        keys.delete(claim.scope);
        keys.set(claim.scope, {
          requestHash: claim.requestHash,
          owner: claim.owner,
          leaseUntil: claim.leaseUntil,
          expiresAt: claim.expiresAt,
          response: undefined,
        });
        return { kind: 'started' };
      }
      if (existing.requestHash !== claim.requestHash) return { kind: 'conflict' };
      return existing.response ? { kind: 'replay', response: existing.response } : { kind: 'in_progress' };
    },
    async completeIdempotent(scope, owner, response, expiresAt) {
      const entry = keys.get(scope);
      if (!entry || entry.owner !== owner) return;
      entry.owner = undefined;
      entry.response = response;
      entry.expiresAt = expiresAt;
    },
    async abandonIdempotent(scope, owner) {
      if (keys.get(scope)?.owner === owner) keys.delete(scope);
    },
    async purgeExpired() {
      return purge();
    },
    async close() {
      entries.clear();
      keys.clear();
    },
  };
}
