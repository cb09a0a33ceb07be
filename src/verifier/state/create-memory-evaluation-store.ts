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
  // Insertion (= expiry) order, for eviction and purging. Not the map's own order: walking a Map from its front
  // after many deletions steps over every deleted slot until the next rehash, which made each eviction cost tens
  // of microseconds once the store was full (single evaluations ran at half speed on the bench).
  const order = createIdQueue();
  const keys = new Map<string, IdempotencyEntry>();

  /** Drops expired evaluations: cheap enough for every write (it stops at the first live one). */
  const purgeEvaluations = (now: number): number => {
    let removed = 0;
    // One retention for all, so insertion order is expiry order and the scan stops at the first live entry.
    for (let id = order.peek(); id !== undefined; id = order.peek()) {
      const evaluation = entries.get(id);
      if (evaluation !== undefined && evaluation.expires_at > now) break;
      order.shift();
      if (evaluation !== undefined) {
        entries.delete(id);
        removed++;
      }
    }
    return removed;
  };

  /**
   * Also drops expired idempotency records. They change expiry when they complete, so they are scanned in full:
   * only by the periodic purge (lookups already treat an expired record as absent).
   */
  const purge = (): number => {
    const now = options.clock.now();
    let removed = purgeEvaluations(now);
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
      const oldest = order.shift();
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
    if (!entries.has(evaluation.evaluation_id)) order.push(evaluation.evaluation_id);
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
      purgeEvaluations(options.clock.now());
      put(evaluation);
    },
    async putMany(evaluations) {
      purgeEvaluations(options.clock.now());
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
      order.clear();
      keys.clear();
    },
  };
}

/** A FIFO of ids over an array: shifting moves a head index, and the consumed front is dropped now and then. */
function createIdQueue() {
  let items: string[] = [];
  let head = 0;
  return {
    push(id: string): void {
      items.push(id);
    },
    peek(): string | undefined {
      return items[head];
    },
    shift(): string | undefined {
      const id = items[head];
      if (id === undefined) return undefined;
      head += 1;
      if (head >= 1024 && head * 2 >= items.length) {
        items = items.slice(head);
        head = 0;
      }
      return id;
    },
    clear(): void {
      items = [];
      head = 0;
    },
  };
}
