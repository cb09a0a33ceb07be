// The in-process state store: maps in insertion (= expiry) order, purged as they are used, bounded in size.
import type { Clock } from '../../platform/clock.ts';
import type {
  EvaluationStore,
  IdempotencyClaim,
  StoredEvaluation,
  StoredResponse,
} from './evaluation-store.ts';

interface IdempotencyEntry {
  readonly scope: string;
  readonly requestHash: string;
  owner: string | undefined;
  leaseUntil: number;
  expiresAt: number;
  response: StoredResponse | undefined;
  /** What the record holds in memory, counted against `maxIdempotencyBytes`. */
  bytes: number;
}

export interface MemoryStoreLimits {
  readonly clock: Clock;
  readonly maxEntries: number;
  /** Estimated bytes of kept evaluations at most (see `evaluationBytes`); the oldest go first. */
  readonly maxEvaluationBytes: number;
  /** Idempotency records kept at most; the oldest go first. */
  readonly maxIdempotencyRecords: number;
  /** Bytes of kept idempotency records (their responses, mostly) at most; the oldest go first. */
  readonly maxIdempotencyBytes: number;
}

/** A record's key and hash, besides its response. */
const RECORD_OVERHEAD_BYTES = 256;

/**
 * What an evaluation holds in memory, roughly: a fixed part per evaluation and per result (ids, provenance), and its
 * values (a string about its length, an object or list a few times its JSON). Only values other than booleans,
 * numbers and null are measured: most evaluations hold none, and this runs for every one stored.
 */
export function evaluationBytes(evaluation: StoredEvaluation): number {
  let bytes = EVALUATION_OVERHEAD_BYTES;
  let counted: unknown;
  for (const result of evaluation.results) {
    bytes += RESULT_OVERHEAD_BYTES;
    const value = result.value;
    if (typeof value === 'string') bytes += value.length * 2;
    else if (value !== null && typeof value === 'object') bytes += 4 * (JSON.stringify(value)?.length ?? 0);
    // The target_ref echoes what the caller sent (up to 20 schemes of 128 characters, a profile): one object
    // shared by the results, counted once.
    if (result.target_ref !== counted) {
      counted = result.target_ref;
      bytes += targetRefBytes(counted);
    }
  }
  // A CCCEV evaluation keeps the configuration's terms it was rendered with: its texts, and a fixed part per claim.
  for (const terms of evaluation.cccev_terms?.claims ?? []) {
    const text =
      terms.title.length + (terms.requirement?.length ?? 0) + (terms.evidence_type_iri?.length ?? 0);
    bytes += RESULT_OVERHEAD_BYTES / 2 + 2 * text;
  }
  return bytes;
}

/** The texts of a target_ref the caller chose, at two bytes a character, with a fixed part per scheme. */
function targetRefBytes(ref: unknown): number {
  if (ref === null || typeof ref !== 'object') return 0;
  const { identifier_schemes: schemes, profile } = ref as { identifier_schemes?: unknown; profile?: unknown };
  let bytes = typeof profile === 'string' ? 2 * profile.length : 0;
  if (Array.isArray(schemes)) {
    for (const scheme of schemes)
      bytes += SCHEME_OVERHEAD_BYTES + (typeof scheme === 'string' ? 2 * scheme.length : 0);
  }
  return bytes;
}

const EVALUATION_OVERHEAD_BYTES = 1024;
const SCHEME_OVERHEAD_BYTES = 32;
const RESULT_OVERHEAD_BYTES = 1536;

export interface MemoryEvaluationStore extends EvaluationStore {
  /** Stored responses of idempotency records this store still holds, wherever it holds them. */
  heldIdempotencyResponses(): number;
}

export function createMemoryEvaluationStore(options: MemoryStoreLimits): MemoryEvaluationStore {
  // Each kept evaluation with its estimated bytes; the total of those bytes.
  const entries = new Map<string, { readonly evaluation: StoredEvaluation; readonly bytes: number }>();
  let evaluationTotal = 0;
  const dropEvaluation = (id: string) => {
    evaluationTotal -= entries.get(id)?.bytes ?? 0;
    entries.delete(id);
  };
  // Insertion (= expiry) order, for eviction and purging. Not the map's own order: walking a Map from its front
  // after many deletions steps over every deleted slot until the next rehash, which made each eviction cost tens
  // of microseconds once the store was full (single evaluations ran at half speed on the bench).
  const order = createQueue<string>();
  const keys = new Map<string, IdempotencyEntry>();
  // Idempotency records in the order they were claimed, for eviction. A record removed otherwise (released,
  // expired, claimed afresh) stays queued until it reaches the front and is skipped: the map says what is live.
  const keyOrder = createQueue<IdempotencyEntry>();
  let keyBytes = 0;
  let closed = false;

  const dropKey = (entry: IdempotencyEntry) => {
    if (keys.get(entry.scope) !== entry) return;
    keys.delete(entry.scope);
    keyBytes -= entry.bytes;
    // The record may stay queued a while (below): without its response, which no longer counts against the bytes.
    entry.response = undefined;
  };

  /** Drops the oldest records, running or complete, until the records fit both limits. */
  const evictKeys = () => {
    while (keys.size > options.maxIdempotencyRecords || keyBytes > options.maxIdempotencyBytes) {
      const oldest = keyOrder.shift();
      if (oldest === undefined) break;
      dropKey(oldest);
    }
    // Skipped records pile up in the queue under churn without eviction; rebuilt from the map now and then.
    if (keyOrder.size() > 2 * keys.size + 1024) {
      keyOrder.clear();
      for (const entry of keys.values()) keyOrder.push(entry);
    }
  };

  /** Drops expired evaluations: cheap enough for every write (it stops at the first live one). */
  const purgeEvaluations = (now: number): number => {
    let removed = 0;
    // One retention for all, so insertion order is expiry order and the scan stops at the first live entry.
    for (let id = order.peek(); id !== undefined; id = order.peek()) {
      const entry = entries.get(id);
      if (entry !== undefined && entry.evaluation.expires_at > now) break;
      order.shift();
      if (entry !== undefined) {
        dropEvaluation(id);
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
    const removed = purgeEvaluations(now);
    let expiredKeys = 0;
    for (const entry of keys.values()) {
      if (entry.expiresAt <= now) {
        dropKey(entry);
        expiredKeys++;
      }
    }
    // The queue still holds the expired records: rebuilt from the map, as the scan has visited it all anyway.
    if (expiredKeys > 0) {
      keyOrder.clear();
      for (const entry of keys.values()) keyOrder.push(entry);
    }
    evictKeys();
    return removed + expiredKeys;
  };

  /** Stores one evaluation, of `batch` when given (the evaluations written together, queued last, in order). */
  const put = (evaluation: StoredEvaluation, batch?: ReadonlySet<string>) => {
    const id = evaluation.evaluation_id;
    if (entries.has(id)) dropEvaluation(id);
    else order.push(id);
    const bytes = evaluationBytes(evaluation);
    // Oldest first, until there is room by count and by bytes. Never one of the same batch: its answer names them
    // all, so a batch larger than the bytes is kept whole (as one evaluation larger than them is kept alone), and
    // the next write makes room again.
    while (entries.size >= options.maxEntries || evaluationTotal + bytes > options.maxEvaluationBytes) {
      const oldest = order.peek();
      if (oldest === undefined || oldest === id || batch?.has(oldest)) break;
      order.shift();
      dropEvaluation(oldest);
    }
    entries.set(id, { evaluation, bytes });
    evaluationTotal += bytes;
  };

  return {
    kind: 'memory',
    async prepare() {
      return true;
    },
    async isReady() {
      return true;
    },
    checkAvailable() {},
    async put(evaluation) {
      purgeEvaluations(options.clock.now());
      put(evaluation);
    },
    async putMany(evaluations) {
      purgeEvaluations(options.clock.now());
      const batch = new Set<string>();
      for (const evaluation of evaluations) {
        batch.add(evaluation.evaluation_id);
        put(evaluation, batch);
      }
    },
    async get(evaluationId, principalHash) {
      const evaluation = entries.get(evaluationId)?.evaluation;
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
        if (existing) dropKey(existing);
        const entry: IdempotencyEntry = {
          scope: claim.scope,
          requestHash: claim.requestHash,
          owner: claim.owner,
          leaseUntil: claim.leaseUntil,
          expiresAt: claim.expiresAt,
          response: undefined,
          bytes: RECORD_OVERHEAD_BYTES,
        };
        keys.set(claim.scope, entry);
        keyOrder.push(entry);
        keyBytes += entry.bytes;
        evictKeys();
        return { kind: 'started' };
      }
      if (existing.requestHash !== claim.requestHash) return { kind: 'conflict' };
      return existing.response ? { kind: 'replay', response: existing.response } : { kind: 'in_progress' };
    },
    async completeIdempotent(scope, owner, response, expiresAt) {
      const entry = keys.get(scope);
      if (!entry || entry.owner !== owner) return;
      const bytes = RECORD_OVERHEAD_BYTES + heldBytes(response.body);
      // A response larger than every record may hold is not kept: the key is released, as after a failure.
      if (bytes > options.maxIdempotencyBytes) {
        dropKey(entry);
        return;
      }
      // The owner stays: the request that completed the key may still withdraw it (see the PostgreSQL store).
      entry.response = response;
      entry.expiresAt = expiresAt;
      keyBytes += bytes - entry.bytes;
      entry.bytes = bytes;
      evictKeys();
    },
    async abandonIdempotent(scope, owner) {
      const entry = keys.get(scope);
      if (entry?.owner === owner) dropKey(entry);
    },
    async purgeExpired() {
      return purge();
    },
    async close() {
      closed = true;
      entries.clear();
      evaluationTotal = 0;
      order.clear();
      keys.clear();
      keyOrder.clear();
      keyBytes = 0;
    },
    isClosed: () => closed,
    heldIdempotencyResponses: () => keyOrder.count((entry) => entry.response !== undefined),
  };
}

/**
 * What a string takes in memory: a byte a character while every one is Latin-1, two bytes a character (the whole
 * string) once one is not, such as a name in Cyrillic. Not its UTF-8 length, which counts the latter at about half.
 */
function heldBytes(text: string): number {
  return WIDE_CHARACTER.test(text) ? 2 * text.length : text.length;
}

const WIDE_CHARACTER = /[\u0100-\uffff]/;

/** A FIFO over an array: shifting moves a head index, and the consumed front is dropped now and then. */
function createQueue<T>() {
  let items: T[] = [];
  let head = 0;
  return {
    push(item: T): void {
      items.push(item);
    },
    peek(): T | undefined {
      return items[head];
    },
    shift(): T | undefined {
      const item = items[head];
      if (item === undefined) return undefined;
      head += 1;
      if (head >= 1024 && head * 2 >= items.length) {
        items = items.slice(head);
        head = 0;
      }
      return item;
    },
    size(): number {
      return items.length - head;
    },
    count(test: (item: T) => boolean): number {
      let found = 0;
      for (let index = head; index < items.length; index++) if (test(items[index] as T)) found++;
      return found;
    },
    clear(): void {
      items = [];
      head = 0;
    },
  };
}
