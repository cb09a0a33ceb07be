// What a request no route answered gets: 405 with `Allow` when the path answers other methods (RFC 9110
// §15.5.6), else 404. The OPTIONS route matches every path, so it does not make a path "known"; a known path answers
// it (options-requests.ts), so `Allow` names it after the path's own methods.
import type { FastifyInstance } from 'fastify';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Methods with a route for the request target's path (its query dropped), in a fixed order; [] when none. */
export function allowedMethods(app: FastifyInstance, target: string): string[] {
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

/**
 * The problem for a request no route answered. A route of the request's own method that found nothing (an unknown
 * asset, say) is a 404 like any unknown path.
 */
export function unansweredProblem(app: FastifyInstance, method: string, target: string): Problem {
  const methods = allowedMethods(app, target);
  if (methods.length === 0 || methods.includes(method)) return platformProblem('http.not_found');
  const allow = [...methods, 'OPTIONS'].join(', ');
  return platformProblem('http.method_not_allowed', `This path answers ${allow}.`, { headers: { allow } });
}
