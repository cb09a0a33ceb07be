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
    const { total, loaded, failed, waiting } = runtime.state.readiness;
    if (runtime.state.generation === undefined) {
      const waits = [...(waiting?.values() ?? [])];
      const detail =
        waits.length === 0
          ? `${loaded} of ${total} tables loaded`
          : `${loaded} of ${total} tables loaded; ${waits.length} waiting for their database (retried until it answers)`;
      throw relayProblem('schema.resource_unavailable', detail, {
        extras: {
          total_count: total,
          loaded_count: loaded,
          failed_count: failed,
          not_ready_count: total - loaded,
          ...(waits.length === 0
            ? {}
            : {
                waiting: waits.map((wait) => ({
                  dataset_id: wait.datasetId,
                  table_id: wait.tableId,
                  code: wait.code,
                })),
              }),
        },
        headers: { 'retry-after': '5' },
      });
    }
    return { status: 'ok', checks: { total, ok: loaded, failed } };
  });
}
