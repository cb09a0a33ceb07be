// A problem as the answer on the Fastify path: its status, headers (a challenge for 401 and for a missing scope) and
// body, with its code kept for the audit record.

import type { Problem } from '../problem/problem.ts';
import { PROBLEM_MEDIA_TYPE, renderProblemJson } from '../problem/render-problem-json.ts';
import type { RouteReply, RouteRequest } from './route-types.ts';

export function sendProblem(request: RouteRequest, reply: RouteReply, problem: Problem): void {
  reply.send(renderProblemBody(request, reply, problem));
}

/** Status, headers and error code of a problem response; returns its body. */
export function renderProblemBody(request: RouteRequest, reply: RouteReply, problem: Problem): Buffer {
  if (request.ctx) request.ctx.errorCode = problem.code;
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  if (problem.status === 401 && !reply.hasHeader('www-authenticate')) {
    reply.header('www-authenticate', 'Bearer realm="ambit"');
  } else if (problem.code === 'auth.scope_denied' && !reply.hasHeader('www-authenticate')) {
    // RFC 6750 §3.1: an OAuth client tells "get a token with more scope" from "get a new token" by this.
    // Which scope is missing stays in the detail, where the route decided how much to say.
    reply.header('www-authenticate', 'Bearer realm="ambit", error="insufficient_scope"');
  }
  reply.code(problem.status).header('content-type', PROBLEM_MEDIA_TYPE);
  // A Buffer keeps the media type exactly application/problem+json (no charset parameter appended).
  return Buffer.from(JSON.stringify(renderProblemJson(problem, request.id)));
}
