// Liveness and readiness probes (unauthenticated). The verifier loads nothing; it is ready once listening and
// its state store answers.
import type { FastifyInstance } from 'fastify';
import { verifierProblem } from '../problems.ts';
import { auditFacts, type VerifierRuntime } from '../verifier-runtime.ts';

/** The reference's liveness body: the process answers, which is its one check. */
const HEALTHY = { status: 'ok', checks: { ok: 1, degraded: 0, failed: 0, total: 1 } } as const;

export function registerHealthRoutes(app: FastifyInstance, runtime: VerifierRuntime): void {
  app.get('/healthz', async (request) => {
    auditFacts(request).endpointKind = 'health';
    return HEALTHY;
  });

  app.get('/ready', async (request) => {
    auditFacts(request).endpointKind = 'ready';
    const connections = Object.keys(runtime.config.evidence.source_connections).length;
    if (!(await runtime.store.isReady())) {
      throw verifierProblem('readiness.not_ready', `The ${runtime.store.kind} state store is unavailable.`, {
        extras: { checks: { state: runtime.store.kind, state_ready: false } },
        headers: { 'retry-after': '5' },
      });
    }
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
