// Liveness and readiness probes (unauthenticated). The verifier loads nothing; it is ready once listening, its
// state store answers and, when CEL workers were started, not every one of them has failed to start.
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
    const stateReady = await runtime.store.isReady();
    // Workers still starting are no reason: work waits for them. Workers that all failed to start are (the pool
    // tries again, meanwhile claims whose rules need one are refused). Neither why nor where is told here.
    const celFailing = runtime.engine.cel.workersFailing();
    if (!stateReady || celFailing) {
      const reasons = [
        ...(stateReady ? [] : [`The ${runtime.store.kind} state store is unavailable.`]),
        ...(celFailing ? ['No CEL worker could be started.'] : []),
      ];
      throw verifierProblem('readiness.not_ready', reasons.join(' '), {
        extras: {
          checks: {
            state: runtime.store.kind,
            state_ready: stateReady,
            ...(celFailing ? { cel_workers_ready: false } : {}),
          },
        },
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
