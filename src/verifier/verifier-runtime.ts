// What route groups receive from the composition root: config, catalogue, engine, store and the auth stage.

import type { Clock } from '../platform/clock.ts';
import type { RouteRequest } from '../platform/http/route-types.ts';
import type { Random } from '../platform/random.ts';
import type { ClaimCatalog } from './claims/build-claim-catalog.ts';
import type { ClaimEngine } from './claims/evaluate-claims.ts';
import type { VerifierConfig } from './config/schema.ts';
import type { Authenticate } from './create-verifier-authenticator.ts';
import type { EvaluationStore } from './state/evaluation-store.ts';

export interface VerifierRuntime {
  readonly config: VerifierConfig;
  readonly catalog: ClaimCatalog;
  readonly engine: ClaimEngine;
  readonly store: EvaluationStore;
  readonly clock: Clock;
  readonly random: Random;
  /** Keys the handles and hashes that stand in for identifiers (the audit secret). */
  readonly hashSecret: Buffer;
  readonly authenticate: Authenticate;
  /** Writes extra audit records of this request (one per batch item); resolves once they are stored. */
  writeAuditRecords(records: readonly Record<string, unknown>[]): Promise<void>;
}

/** Facts a route records for its audit event; identifiers only ever as keyed hashes. */
export interface VerifierAuditFacts {
  endpointKind?: string;
  decision?: string;
  evaluationId?: string;
  claimIds?: string[];
  purpose?: string;
  scopesUsed?: string[];
  disclosure?: string;
  format?: string;
  targetType?: string;
  targetRefHash?: string;
  identifierSchemes?: string[];
  sourceReadCount?: number;
  sourceCount?: number;
  /** The precise failure (e.g. `target.not_found` behind a 409 evidence.not_available). */
  errorDetailCode?: string;
  /** Batch evaluations: the batch, its size and outcome, upstream requests and the idempotency key's use. */
  batchId?: string;
  batchSize?: number;
  batchSucceeded?: number;
  batchFailed?: number;
  upstreamRequestCount?: number;
  /** Every purpose of a batch when its items have several. */
  purposes?: string[];
  /** `unavailable`: a key was sent but the state store could not be asked (503 `state.unavailable`). */
  idempotency?: 'none' | 'new' | 'replayed' | 'conflict' | 'unavailable';
}

export function auditFacts(request: RouteRequest): VerifierAuditFacts {
  return request.ctx.audit as VerifierAuditFacts;
}
