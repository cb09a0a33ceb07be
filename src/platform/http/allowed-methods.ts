// What a request no route answered gets: 405 with `Allow` when the path answers other methods (RFC 9110
// §15.5.6), else 404. The OPTIONS route matches every path, so it does not make a path "known"; a known path answers
// it (options-requests.ts), so `Allow` names it after the path's own methods.
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

/**
 * A request no route takes that asks (`Expect: 100-continue`) whether to send its body is answered 404 or 405 at
 * once: Fastify would read the body first, so the client would upload it only to learn that nothing takes it.
 * Registered after the server's own onRequest hook, which begins every request.
 */
export function refuseUnroutedUploads(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.is404 && request.headers.expect !== undefined && !request.raw.complete) {
      done(unansweredProblem(app, request.method, request.url));
      return;
    }
    done();
  });
}

/**
 * Fastify's refusals of a body or content type, which it raises for requests no route takes too (a QUERY without
 * Content-Type, JSON that does not parse).
 */
const BODY_ERRORS: ReadonlySet<unknown> = new Set([
  'FST_ERR_ROUTE_MISSING_CONTENT_TYPE',
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
]);

/**
 * The problem for such a refusal of a request no route takes: 404 or 405, as for any other such request (its body
 * was for a route that does not exist). Undefined for every other error.
 */
export function unroutedBodyProblem(
  app: FastifyInstance,
  request: FastifyRequest,
  error: unknown,
): Problem | undefined {
  if (!request.is404 || !BODY_ERRORS.has((error as { code?: unknown })?.code)) return undefined;
  return unansweredProblem(app, request.method, request.url);
}
