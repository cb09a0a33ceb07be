// The runtime OpenAPI document (auth-gated unless `server.openapi_requires_auth: false`) and the /docs page.
import type { FastifyInstance } from 'fastify';
import { registerDocsPage } from '../../platform/http/docs-page.ts';
import { addVary, CREDENTIAL_HEADERS } from '../../platform/http/vary.ts';
import { buildOpenApi, type OpenApiMetadata } from '../openapi/build-openapi.ts';
import { auditFacts, type RelayRuntime } from '../relay-runtime.ts';

export const RELAY_VERSION = '0.1.0';

/** `metadata`: the metadata surface mounted beside, described in the document too. */
export function registerOpenApiRoutes(
  app: FastifyInstance,
  runtime: RelayRuntime,
  metadata?: OpenApiMetadata,
): void {
  const requiresAuth = runtime.catalog.config.server.openapi_requires_auth;
  app.get('/openapi.json', async (request, reply) => {
    // Filtered to the caller when it needs a credential (refusals included, as the other scoped routes); the same
    // for everyone otherwise.
    if (requiresAuth) addVary(reply, ...CREDENTIAL_HEADERS);
    auditFacts(request).endpointKind = 'openapi';
    const principal = requiresAuth ? await runtime.authenticate(request) : undefined;
    return buildOpenApi(runtime.catalog, principal, RELAY_VERSION, metadata);
  });
  registerDocsPage(app, {
    title: `${runtime.catalog.config.catalog.title} API`,
    openapiPath: '/openapi.json',
  });
}
