// The credential of a POST route, checked before its body is read: a caller without one is answered 401 whatever it
// sends (its body, however large or broken, is never read), and a body refused afterwards is audited with its
// caller. The handler then takes the principal found here.
import type { Principal } from '../../platform/auth/principal.ts';
import type { RouteRequest } from '../../platform/http/route-types.ts';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';

/** The `beforeBody` stage of a route: its audit facts say which route refused the caller. */
export function authenticateFirst(
  runtime: VerifierRuntime,
  endpointKind: string,
  denied: string,
): (request: RouteRequest) => Promise<void> {
  return async (request) => {
    const facts = auditFacts(request);
    facts.endpointKind = endpointKind;
    facts.decision = denied;
    await runtime.authenticate(request);
  };
}

/** The principal `authenticateFirst` found (a request reaching a handler passed it), else found now. */
export async function authenticated(runtime: VerifierRuntime, request: RouteRequest): Promise<Principal> {
  return request.ctx.principal ?? (await runtime.authenticate(request));
}
