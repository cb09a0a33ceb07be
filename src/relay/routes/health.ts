// Liveness and readiness probes (unauthenticated).
import type { FastifyInstance } from 'fastify';
import { relayProblem } from '../problems.ts';
import { auditFacts, type RelayRuntime } from '../relay-runtime.ts';

export function registerHealthRoutes(app: FastifyInstance, runtime: RelayRuntime): void {
  app.get('/healthz', async (request) => {
    auditFacts(request).endpointKind = 'health';
    return { status: 'ok' };
  });

  app.get('/ready', async (request) => {
    auditFacts(request).endpointKind = 'ready';
    const { total, loaded, failed } = runtime.state.readiness;
    if (runtime.state.generation === undefined) {
      throw relayProblem('schema.resource_unavailable', `${loaded} of ${total} tables loaded`, {
        extras: {
          total_count: total,
          loaded_count: loaded,
          failed_count: failed,
          not_ready_count: total - loaded,
        },
        headers: { 'retry-after': '5' },
      });
    }
    return { status: 'ok', checks: { total, ok: loaded, failed } };
  });
}
