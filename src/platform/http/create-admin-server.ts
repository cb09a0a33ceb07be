// An admin listener: the shared server bootstrap (request ids, error boundary, problems) on its own address, for
// operators only. No CORS, no proxy trust, few connections; each route names the one scope it needs.
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import { requireScope } from '../auth/require-scope.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { MetricFamily } from '../metrics/metric-family.ts';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from '../metrics/render-prometheus.ts';
import type { Problem } from '../problem/problem.ts';
import type { Random } from '../random.ts';
import { boundRequestBodies } from './bound-request-bodies.ts';
import { createHttpServerApp } from './create-server.ts';
import type { RouteReply, RouteRequest } from './route-types.ts';

export interface AdminServerOptions {
  readonly requestTimeoutMs: number;
  readonly deps: { readonly logger: Logger; readonly clock: Clock; readonly random: Random };
  /** Runs once per response, as on the public listener (the service's audit write). */
  readonly beforeSend?: (request: RouteRequest, reply: RouteReply) => void;
  /** The service's own problems for platform codes, as on the public listener (createHttpServerApp). */
  readonly serviceProblems?: Readonly<Record<string, () => Problem>>;
}

/** No admin route uses a body: a larger one, on any route and with any method, is refused 413 unread. */
const ADMIN_BODY_LIMIT = 4096;

export function createAdminServer(options: AdminServerOptions): FastifyInstance {
  const app = createHttpServerApp({
    logger: options.deps.logger,
    clock: options.deps.clock,
    random: options.deps.random,
    requestTimeoutMs: options.requestTimeoutMs,
    corsAllowedOrigins: [],
    trustProxy: false,
    maxConnections: 64,
    bodyLimit: ADMIN_BODY_LIMIT,
    // Every answer is for no cache to keep: refusals, unknown routes and answers given before any route too.
    cacheControl: 'no-store',
    ...(options.beforeSend === undefined ? {} : { beforeSend: options.beforeSend }),
    ...(options.serviceProblems === undefined ? {} : { serviceProblems: options.serviceProblems }),
  });
  boundRequestBodies(app, ADMIN_BODY_LIMIT);
  return app;
}

/**
 * An onRequest guard: authenticate, then require `scope`, before any body is read. It records the audit facts
 * every admin response carries (`endpoint_kind: admin`, the scope used).
 */
export function adminScopeGuard(
  authenticate: (request: FastifyRequest) => Principal | Promise<Principal>,
  scope: string,
): onRequestHookHandler {
  return async (request) => {
    const facts = request.ctx.audit;
    facts.endpointKind = 'admin';
    requireScope(await authenticate(request), scope);
    facts.scopesUsed = [scope];
  };
}

/**
 * For routes whose body is not used (admin POSTs): in `scope` a body of any type, or none, is read within the
 * app's `bodyLimit` (413 past it) and dropped, so neither its type nor its syntax can fail the request.
 */
export function ignoreRequestBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
}

/** `GET /metrics`: Prometheus text of every process's families, gathered at scrape time. */
export function registerMetricsRoute(
  app: FastifyInstance,
  guard: onRequestHookHandler,
  gather: () => Promise<readonly (readonly MetricFamily[])[]>,
): void {
  app.get('/metrics', { onRequest: guard }, async (_request, reply) => {
    const text = await renderPrometheus(await gather());
    reply.header('content-type', PROMETHEUS_CONTENT_TYPE).header('cache-control', 'no-store');
    return text;
  });
}
