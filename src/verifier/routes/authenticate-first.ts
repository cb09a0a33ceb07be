// The verifier's POST routes check the credential before the body (platform/auth/authenticate-first.ts); a refused
// caller's audit event says which route refused it.
import * as first from '../../platform/auth/authenticate-first.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import type { RouteRequest } from '../../platform/http/route-types.ts';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';

/** The `beforeBody` stage of a route: its audit facts say which route refused the caller. */
export function authenticateFirst(
  runtime: VerifierRuntime,
  endpointKind: string,
  denied: string,
): (request: RouteRequest) => Promise<void> {
  return first.authenticateFirst(runtime.authenticate, (request) => {
    const facts = auditFacts(request);
    facts.endpointKind = endpointKind;
    facts.decision = denied;
  });
}

/** The principal `authenticateFirst` found (a request reaching a handler passed it), else found now. */
export function authenticated(runtime: VerifierRuntime, request: RouteRequest): Promise<Principal> {
  return first.authenticated(runtime.authenticate, request);
}
