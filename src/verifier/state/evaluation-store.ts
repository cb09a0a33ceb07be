// Stored evaluations: kept for a retention window so a later render or issuance can refer to them by id.
// Memory now; a PostgreSQL store implements the same interface for multi-instance deployments.
import type { DisclosureLevel } from '../config/schema.ts';

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
  /** sha256 of the canonical request, for binding checks. */
  readonly request_hash: string;
}

export interface EvaluationStore {
  readonly kind: 'memory' | 'postgresql';
  put(evaluation: StoredEvaluation): Promise<void>;
  /** The evaluation when it exists, is unexpired and belongs to this principal; else undefined. */
  get(evaluationId: string, principalHash: string): Promise<StoredEvaluation | undefined>;
  /** Removes expired evaluations; returns how many. */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
}
