// The runtime OpenAPI document (auth-gated unless `server.openapi_requires_auth: false`) and the /docs page.
import type { FastifyInstance } from 'fastify';
import { registerDocsPage } from '../../platform/http/docs-page.ts';
import { buildVerifierOpenApi, openApiClaimIds } from '../openapi/build-verifier-openapi.ts';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';
import { privateView } from './discovery.ts';

export const VERIFIER_VERSION = '0.1.0';

/** Documents kept, by the claims they name: callers share a handful of scope sets. */
const MAX_DOCUMENTS = 64;

export function registerOpenApiRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  const requiresAuth = runtime.config.server.openapi_requires_auth;
  // The document depends on the config (fixed until a restart) and the claims the caller sees: each such set's
  // text is built once (a few milliseconds) and served as is.
  const documents = new Map<string, string>();
  app.get('/openapi.json', async (request, reply) => {
    // Filtered to the caller when it needs a credential; the same for everyone otherwise.
    if (requiresAuth) privateView(reply);
    auditFacts(request).endpointKind = 'openapi';
    const principal = requiresAuth ? await runtime.authenticate(request) : undefined;
    const claimIds = openApiClaimIds(runtime.catalog, principal);
    const key = claimIds.join('\n');
    let text = documents.get(key);
    if (text === undefined) {
      text = JSON.stringify(buildVerifierOpenApi(runtime.config, claimIds, VERIFIER_VERSION));
      if (documents.size >= MAX_DOCUMENTS) documents.delete(documents.keys().next().value as string);
      documents.set(key, text);
    }
    return reply.type('application/json; charset=utf-8').send(text);
  });
  registerDocsPage(app, {
    title: `${runtime.config.evidence.service_id} verifier API`,
    openapiPath: '/openapi.json',
  });
}
