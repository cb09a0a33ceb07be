// Liveness and readiness probes (unauthenticated). The verifier loads nothing, so it is ready once listening.
import type { FastifyInstance } from 'fastify';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';

export function registerHealthRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  app.get('/healthz', async (request) => {
    auditFacts(request).endpointKind = 'health';
    return { status: 'ok' };
  });

  app.get('/ready', async (request) => {
    auditFacts(request).endpointKind = 'ready';
    const connections = Object.keys(runtime.config.evidence.source_connections).length;
    return {
      status: 'ready',
      checks: {
        claims: runtime.catalog.ordered.length,
        source_connections: connections,
        state: runtime.store.kind,
      },
    };
  });
}
