// Problems raised by the verifier's own stages: evaluation requests, claims, disclosure and sources.
import { PLATFORM_PROBLEMS } from '../platform/problem/platform-problems.ts';
import {
  createProblemFactory,
  isProblem,
  type Problem,
  type ProblemCatalog,
  withAdded,
} from '../platform/problem/problem.ts';

export const VERIFIER_PROBLEMS = {
  'auth.invalid_token': {
    status: 401,
    title: 'Invalid token',
    description:
      'OIDC mode: the bearer access token does not verify (signature, issuer, audience, lifetime, key, algorithm or type); the detail says which.',
  },
  'request.uri_too_long': {
    status: 414,
    title: 'URI too long',
    description:
      'The request URI exceeds 8 KiB, or one path segment does (the verifier contract names it so; the relay answers `internal.uri_too_long`).',
  },
  'request.invalid': {
    status: 400,
    title: 'Invalid request',
    description:
      'The request body does not match the schema (also: a target identifier scheme sent twice, or two differing only by case; a target attribute not of the type a requested claim reads), a purpose is not 1 to 512 visible ASCII characters, `Data-Purpose` is sent twice or differs from the body `purpose` (or an item `purpose` from the batch one), or an `Idempotency-Key` is malformed, sent twice or sent to a route that takes none.',
  },
  'target.identifier_missing': {
    status: 400,
    title: 'Target identifier missing',
    description:
      'A claim looks its subject up by an identifier, id or attribute the request did not send, or sent blank.',
  },
  'target.type_mismatch': {
    status: 400,
    title: 'Target type mismatch',
    description: "The target's `type` is not the `subject_type` of a requested claim.",
  },
  'target.attributes_insufficient': {
    status: 400,
    title: 'Target insufficient',
    description: 'The `target` has none of `id`, a non-empty identifier or attributes.',
  },
  'claim.not_found': {
    status: 404,
    title: 'Claim not found',
    description: 'No claim with this id exists in the catalogue visible to the caller.',
  },
  'claim.version_not_found': {
    status: 404,
    title: 'Claim version not found',
    description: 'The claim exists but not in the requested `version`.',
  },
  'claim.disclosure_not_allowed': {
    status: 403,
    title: 'Disclosure not allowed',
    description:
      'The requested disclosure level is not in the claim `disclosure.allowed`, and its `downgrade` is `deny`, or `default` where the default would disclose more than was asked; or a render of a stored result, or an idempotent batch replay, whose level the claim no longer allows.',
  },
  'claim.format_not_supported': {
    status: 406,
    title: 'Format not supported',
    description:
      'Neither `Accept` nor body `format` names a result format the verifier and every requested claim offer.',
  },
  'claim.operation_unsupported': {
    status: 501,
    title: 'Operation unsupported',
    description:
      'The claim does not offer this operation, or its rule (`plugin`) has no implementation; nothing was read.',
  },
  'claim.rule_evaluation_failed': {
    status: 500,
    title: 'Rule evaluation failed',
    description:
      'The claim rule failed: a CEL error, time or size limit, or a value that does not match the declared type.',
  },
  'purpose.not_allowed': {
    status: 403,
    title: 'Purpose not allowed',
    description: 'The purpose is outside `evidence.allowed_purposes` or differs from the claim `purpose`.',
  },
  'evidence.not_available': {
    status: 409,
    title: 'Evidence not available',
    description:
      'The source holds no single matching record for the target (none or several) or refused its lookup value (HTTP 400); a stable answer, never a false `satisfied: false`.',
  },
  'batch.too_large': {
    status: 413,
    title: 'Batch too large',
    description:
      'The batch holds more items than `evidence.inline_batch_limit` or a requested claim `operations.batch_evaluate.max_subjects` allows.',
  },
  'idempotency.conflict': {
    status: 409,
    title: 'Idempotency conflict',
    description:
      'The `Idempotency-Key` was already used by this caller for a different request, or its first request is still running (then with `Retry-After`).',
  },
  'evaluation.not_found': {
    status: 404,
    title: 'Evaluation not found',
    description:
      'No stored evaluation with this id belongs to the caller: unknown, created by another caller, past its retention, or made with a claim no longer configured.',
  },
  'evaluation.binding_mismatch': {
    status: 403,
    title: 'Evaluation binding mismatch',
    description:
      'The render request names a format, claims, disclosure or purpose other than those the evaluation was made with.',
  },
  'state.unavailable': {
    status: 503,
    title: 'State store unavailable',
    description:
      'The state store (PostgreSQL) cannot be reached or did not answer in time, or is set up so that it cannot be used; nothing was stored. `retryable` says whether the same request can pass later.',
  },
  'readiness.not_ready': {
    status: 503,
    title: 'Not ready',
    description:
      'The verifier cannot serve evaluations yet: its state store is unreachable or not migrated, or none of its CEL workers could start.',
  },
  'source.unavailable': {
    status: 503,
    title: 'Source unavailable',
    description:
      'A source the claim reads is not configured, refused the read, or stayed unavailable after retries or for as long as the request could wait; `retryable` says whether the same request can pass later.',
  },
} as const satisfies ProblemCatalog;

export type VerifierProblemCode = keyof typeof VERIFIER_PROBLEMS;

export const verifierProblem = createProblemFactory(VERIFIER_PROBLEMS);

/** Platform codes the verifier contract names otherwise, on the public and the admin listener alike. */
export const SERVICE_PROBLEMS: Readonly<Record<string, () => Problem>> = {
  'internal.uri_too_long': () => verifierProblem('request.uri_too_long'),
};

/** Platform codes with the status the verifier contract gives them (`audit.write_failed` is 500 here). */
const verifierPlatformProblem = createProblemFactory(PLATFORM_PROBLEMS, 'verifier');

/** What a failed audit write answers under `fail_closed`. */
export function auditWriteFailed(cause: unknown): Problem {
  return verifierPlatformProblem('audit.write_failed', 'The audit record could not be written.', { cause });
}

/**
 * Whether a claim id a request named may be said back: made of the characters claim ids are made of (in either case),
 * never markup, control or bidi characters a client might render.
 */
export function sayableClaimId(id: string): boolean {
  return /^[A-Za-z0-9_.-]+$/.test(id);
}

/**
 * The problem of one claim of a request, naming that claim in the extension member `claim_id`: a request for several
 * claims fails as a whole, and the client learns which one failed (a copy: see withAdded). Anything but a problem
 * passes unchanged, and so does a problem of an id that is not said back (sayableClaimId: an unknown one).
 */
export function claimProblem(error: unknown, claimId: string): unknown {
  if (!isProblem(error) || error.extras.claim_id === claimId || !sayableClaimId(claimId)) return error;
  return withAdded(error, { extras: { claim_id: claimId } });
}
