// Admin routes: `POST /admin/v1/reload` is a no-op, because the verifier applies keys and configuration only at
// start. It answers so operators and tooling built for a reloading service learn to restart instead.
import type { FastifyInstance } from 'fastify';
import { adminScopeGuard, ignoreRequestBodies } from '../../platform/http/create-admin-server.ts';
import type { VerifierRuntime } from '../verifier-runtime.ts';

/** The scope admin routes need; a caller holding only evidence scopes gets 403 `auth.scope_denied`. */
export const VERIFIER_ADMIN_SCOPE = 'verifier:admin';

export const RELOAD_NOOP_DETAIL =
  'The verifier does not reload: key and configuration changes need a restart.';

export function registerAdminRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  // The guard checks the credential and the scope on arrival, before any body is read or parsed.
  const guard = adminScopeGuard(runtime.authenticate, VERIFIER_ADMIN_SCOPE);
  app.register(async (scope) => {
    ignoreRequestBodies(scope);
    // `Cache-Control: no-store` comes from the admin server, on every answer (create-admin-server.ts).
    scope.post('/admin/v1/reload', { onRequest: guard }, async () => ({
      reloaded: false,
      status: 'noop',
      detail: RELOAD_NOOP_DETAIL,
    }));
  });
}
