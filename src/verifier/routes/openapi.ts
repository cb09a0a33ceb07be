// The runtime OpenAPI document (auth-gated unless `server.openapi_requires_auth: false`) and the /docs page.
import type { FastifyInstance } from 'fastify';
import { registerDocsPage } from '../../platform/http/docs-page.ts';
import { buildVerifierOpenApi } from '../openapi/build-verifier-openapi.ts';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';
import { privateView } from './discovery.ts';

export const VERIFIER_VERSION = '0.1.0';

export function registerOpenApiRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  const requiresAuth = runtime.config.server.openapi_requires_auth;
  app.get('/openapi.json', async (request, reply) => {
    // Filtered to the caller when it needs a credential; the same for everyone otherwise.
    if (requiresAuth) privateView(reply);
    auditFacts(request).endpointKind = 'openapi';
    const principal = requiresAuth ? await runtime.authenticate(request) : undefined;
    return buildVerifierOpenApi(runtime.config, runtime.catalog, principal, VERIFIER_VERSION);
  });
  registerDocsPage(app, {
    title: `${runtime.config.evidence.service_id} verifier API`,
    openapiPath: '/openapi.json',
  });
}
