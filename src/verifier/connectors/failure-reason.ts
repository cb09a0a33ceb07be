// The precise reason an evaluation failed (source read, rule): kept for the audit event, never shown to the client.
import { isProblem } from '../../platform/problem/problem.ts';

export class FailureReason extends Error {
  /** Granular audit code such as `target.not_found`, `target.match_ambiguous` or `source.timeout`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'FailureReason';
    this.code = code;
  }
}

/** The code an audit event records for a failure: the granular one when there is one, else the problem code. */
export function auditCodeOf(error: unknown): string | undefined {
  if (!isProblem(error)) return undefined;
  return error.cause instanceof FailureReason ? error.cause.code : error.code;
}

/**
 * Reasons a read fails again however often it is retried: the source answered, and its answer for this subject is
 * refused for what it holds (larger than allowed, or not a valid list of records), or refused the request itself
 * (HTTP 400); or the claim's connection is not configured, which only a new configuration changes.
 */
const LASTING_REASONS = new Set([
  'source.too_large',
  'source.invalid_response',
  'source.request_refused',
  'source.not_configured',
]);

/** Whether retrying the same read can only fail the same way (see `LASTING_REASONS`). */
export function failsAgain(error: unknown): boolean {
  const code = auditCodeOf(error);
  return code !== undefined && isLastingReason(code);
}

export function isLastingReason(code: string): boolean {
  return LASTING_REASONS.has(code);
}
