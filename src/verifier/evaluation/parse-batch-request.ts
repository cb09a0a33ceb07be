// Parses a `POST /v1/batch-evaluations` body (verifier contract §2.7). A malformed body or item is a 400 for the
// whole batch (a client bug); a target that is well formed but cannot be evaluated fails its item only.
import { z } from 'zod';
import { isProblem, type Problem } from '../../platform/problem/problem.ts';
import { DISCLOSURE_LEVELS, type DisclosureLevel } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';
import {
  claimRefSchema,
  type EvaluationRequest,
  type EvaluationTarget,
  parseOrReject,
  targetSchema,
  toClaimRefs,
  toEvaluationTarget,
} from './parse-evaluation-request.ts';

/** Items past this are refused before anything else is parsed, whatever the configured limit. */
export const MAX_BATCH_ITEMS = 1000;

const purpose = z.string().min(1).max(512);

export const batchEnvelopeSchema = z.strictObject({
  items: z.array(z.unknown()).min(1),
  claims: z.array(claimRefSchema).min(1).max(32),
  disclosure: z.enum(DISCLOSURE_LEVELS).optional(),
  format: z.string().min(1).max(256).optional(),
  purpose: purpose.optional(),
});

export const batchItemSchema = z.strictObject({ target: targetSchema, purpose: purpose.optional() });

export interface BatchItem {
  readonly index: number;
  /** The target, or the problem that fails this item before any read. */
  readonly target: EvaluationTarget | Problem;
  /** The target's type even when it failed (for the audit event). */
  readonly targetType: string;
  readonly purpose: string | undefined;
  /** The item exactly as sent, for the hash bound to its stored evaluation. */
  readonly raw: unknown;
}

export interface BatchRequest {
  readonly items: readonly BatchItem[];
  readonly claims: EvaluationRequest['claims'];
  readonly disclosure: DisclosureLevel | undefined;
  readonly format: string | undefined;
  readonly purpose: string | undefined;
}

/** The number of items, checked before parsing so an oversize batch is a 413 and not a parse of it. */
export function countItems(raw: unknown): number {
  const items = (raw as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items.length : 0;
}

export function parseBatchRequest(raw: unknown): BatchRequest {
  if (countItems(raw) > MAX_BATCH_ITEMS) {
    throw verifierProblem('batch.too_large', `A batch holds at most ${MAX_BATCH_ITEMS} items.`);
  }
  const parsed = parseOrReject(batchEnvelopeSchema, raw);
  const items = parsed.items.map((rawItem, index): BatchItem => {
    const value = parseOrReject(batchItemSchema, rawItem, ['items', index]);
    let target: EvaluationTarget | Problem;
    try {
      target = toEvaluationTarget(value.target);
    } catch (error) {
      if (!isProblem(error)) throw error;
      target = error;
    }
    return { index, target, targetType: value.target.type, purpose: value.purpose, raw: rawItem };
  });
  return {
    items,
    claims: toClaimRefs(parsed.claims),
    disclosure: parsed.disclosure,
    format: parsed.format,
    purpose: parsed.purpose,
  };
}
