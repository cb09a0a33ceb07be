// The verifier's state store: stored evaluations (so a later render or issuance can refer to them by id) and
// batch idempotency records. `memory` keeps them in the process; `postgresql` shares them between instances.
import type { DisclosureLevel } from '../config/schema.ts';
import type { CccevTerms } from '../evaluation/render-cccev.ts';

export interface StoredEvaluation {
  readonly evaluation_id: string;
  /** Hash of the principal id: another caller cannot use the evaluation. */
  readonly principal_hash: string;
  readonly purpose: string;
  readonly claim_ids: readonly string[];
  readonly disclosure: DisclosureLevel | 'mixed';
  readonly format: string;
  /** The result views exactly as returned. */
  readonly results: readonly Readonly<Record<string, unknown>>[];
  readonly created_at: number;
  readonly expires_at: number;
  /** Keyed hash of the canonical request (it holds identifiers), for binding checks. */
  readonly request_hash: string;
  /** For a CCCEV evaluation: the configuration's terms it was rendered with, so a render answers the same. */
  readonly cccev_terms?: CccevTerms;
}

/** A response kept for replay under an idempotency key. */
export interface StoredResponse {
  readonly status: number;
  readonly content_type: string;
  readonly body: string;
}

export interface IdempotencyClaim {
  /** `<principal hash>:<route>:<keyed hash of the key>`: keys never collide across callers or routes. */
  readonly scope: string;
  /** Keyed hash of the canonical request; the same key with another request is a conflict. */
  readonly requestHash: string;
  /** Random token naming the request that owns the key while it runs. */
  readonly owner: string;
  /** Until then the owner is presumed alive; afterwards another request may take the key over. */
  readonly leaseUntil: number;
  readonly expiresAt: number;
}

export type IdempotencyOutcome =
  /** The key is new (or expired, or its owner's lease ran out): the caller now owns it and runs the request. */
  | { readonly kind: 'started' }
  /** The same request already completed: replay its response. */
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  /** The same request is still running elsewhere. */
  | { readonly kind: 'in_progress' }
  /** The key was used for a different request. */
  | { readonly kind: 'conflict' };

export interface EvaluationStore {
  readonly kind: 'memory' | 'postgresql';
  /**
   * Makes the store usable (PostgreSQL: connects and runs the migrations). Never throws: false when it could not,
   * and every operation then answers 503 `state.unavailable` until a later attempt succeeds.
   */
  prepare(): Promise<boolean>;
  /** Whether the store answers now (for `/ready`). */
  isReady(): Promise<boolean>;
  /**
   * Throws 503 `state.unavailable` at once while the store is known to be unreachable (it failed to reach its
   * database under a second ago, or its migrations are still running after a caller gave up waiting for them), so
   * that a request whose result could not be kept reads no source first.
   */
  checkAvailable(): void;
  put(evaluation: StoredEvaluation): Promise<void>;
  /** Stores several evaluations at once (one batch); all or none. */
  putMany(evaluations: readonly StoredEvaluation[]): Promise<void>;
  /** The evaluation when it exists, is unexpired and belongs to this principal; else undefined. */
  get(evaluationId: string, principalHash: string): Promise<StoredEvaluation | undefined>;
  /** Claims an idempotency key for a request, or reports what became of an earlier use of it. */
  beginIdempotent(claim: IdempotencyClaim): Promise<IdempotencyOutcome>;
  /** Stores the response of an owned key for replay until `expiresAt`. */
  completeIdempotent(
    scope: string,
    owner: string,
    response: StoredResponse,
    expiresAt: number,
  ): Promise<void>;
  /**
   * Releases an owned key whose request failed, so a retry runs afresh; also one it may have completed, when the
   * store's answer to the completion was lost.
   */
  abandonIdempotent(scope: string, owner: string): Promise<void>;
  /** Removes expired evaluations and idempotency records; returns how many. */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
  /** Whether `close` has been called: work in the background (a retried release) stops then. */
  isClosed(): boolean;
}
