// The verifier's admin listener (`server.admin_bind`): operations routes on their own address, never mounted on
// the public listener and absent from its OpenAPI document. It writes to the public listener's audit chain.
import type { FastifyInstance } from 'fastify';
import type { AuditWriter } from '../../platform/audit/create-audit-writer.ts';
import type { Clock } from '../../platform/clock.ts';
import { createAdminServer } from '../../platform/http/create-admin-server.ts';
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import type { Logger } from '../../platform/log.ts';
import type { Random } from '../../platform/random.ts';
import type { VerifierConfig } from '../config/schema.ts';
import { SERVICE_PROBLEMS } from '../problems.ts';
import type { VerifierRuntime } from '../verifier-runtime.ts';
import { registerAdminRoutes } from './admin-routes.ts';

export interface AdminAppOptions {
  readonly server: VerifierConfig['server'];
  readonly runtime: VerifierRuntime;
  readonly audit: AuditWriter;
  readonly deps: { readonly logger: Logger; readonly clock: Clock; readonly random: Random };
  buildRecord(request: RouteRequest, reply: RouteReply): Record<string, unknown>;
}

export function createAdminApp(options: AdminAppOptions): FastifyInstance {
  const app = createAdminServer({
    requestTimeoutMs: options.server.request_timeout,
    deps: options.deps,
    serviceProblems: SERVICE_PROBLEMS,
    beforeSend(request, reply) {
      options.audit.write(options.buildRecord(request, reply));
    },
  });
  registerAdminRoutes(app, options.runtime);
  return app;
}
