// Problems raised by the verifier's own stages: evaluation requests, claims, disclosure and sources.
import { createProblemFactory, type ProblemCatalog } from '../platform/problem/problem.ts';

export const VERIFIER_PROBLEMS = {
  'request.invalid': {
    status: 400,
    title: 'Invalid request',
    description:
      'The evaluation request body does not match the schema, the `Data-Purpose` header and body `purpose` differ, or an `Idempotency-Key` was sent to a route that takes none.',
  },
  'target.identifier_missing': {
    status: 400,
    title: 'Target identifier missing',
    description: 'A claim looks its subject up by an identifier, id or attribute the request did not send.',
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
      'The requested disclosure level is not in the claim `disclosure.allowed` and its `downgrade` is `deny`.',
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
      'The source holds no single matching record for the target (none or several); a stable answer, never a false `satisfied: false`.',
  },
  'source.unavailable': {
    status: 503,
    title: 'Source unavailable',
    description:
      'A source the claim reads is not configured, refused the read, or stayed unavailable after retries; retry later.',
  },
} as const satisfies ProblemCatalog;

export type VerifierProblemCode = keyof typeof VERIFIER_PROBLEMS;

export const verifierProblem = createProblemFactory(VERIFIER_PROBLEMS);
