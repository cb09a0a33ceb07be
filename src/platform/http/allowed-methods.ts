// The methods a path answers, for the 405 a known path gives to another method (RFC 9110 §15.5.6: with `Allow`).
// OPTIONS is left out: the CORS preflight route matches every path, so it would make every path "known".
import type { FastifyInstance } from 'fastify';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Methods with a route for the request target's path (its query dropped), in a fixed order; [] when none. */
export function allowedMethods(app: FastifyInstance, target: string): string[] {
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}
