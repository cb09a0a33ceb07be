// The credential of a POST route, checked before its body is read: a caller without a valid one is answered 401
// whatever it sends (its body, however large or broken, is never read, and an `Expect: 100-continue` client is
// never asked for it), and a body refused afterwards is audited with its caller. The handler then takes the
// principal found here. Used as the `beforeBody` stage of `addJsonPostRoute` or as a Fastify `onRequest` hook.
import type { RouteRequest } from '../http/route-types.ts';
import type { Principal } from './principal.ts';

/** A service's auth stage; it records the principal it finds in `request.ctx.principal`. */
export type Authenticate = (request: RouteRequest) => Principal | Promise<Principal>;

/**
 * The stage run before the body: `prepare` first records what the route's audit event says of a refused caller
 * (which route refused it), then the caller is authenticated; what that throws is the answer.
 */
export function authenticateFirst(
  authenticate: Authenticate,
  prepare: (request: RouteRequest) => void,
): (request: RouteRequest) => Promise<void> {
  return async (request) => {
    prepare(request);
    await authenticate(request);
  };
}

/** The principal `authenticateFirst` found (a request reaching a handler passed it), else found now. */
export async function authenticated(authenticate: Authenticate, request: RouteRequest): Promise<Principal> {
  return request.ctx.principal ?? (await authenticate(request));
}
