// Liveness and readiness probes (unauthenticated). Table ids are the operator's private configuration: the public
// /ready counts the tables waiting for their database, and only the admin listener's names them.
import type { FastifyInstance } from 'fastify';
import { relayProblem } from '../problems.ts';
import { auditFacts, type RelayRuntime } from '../relay-runtime.ts';
import type { Readiness } from '../relay-state.ts';
import type { TableWaiting } from '../reload/reloader.ts';

export function registerHealthRoutes(app: FastifyInstance, runtime: RelayRuntime): void {
  app.get('/healthz', async (request) => {
    auditFacts(request).endpointKind = 'health';
    return HEALTHY;
  });

  app.get('/ready', async (request) => {
    auditFacts(request).endpointKind = 'ready';
    const { total, loaded, failed, waiting } = runtime.state.readiness;
    if (runtime.state.generation === undefined) {
      throw notReadyProblem({ total, loaded, failed }, waitingTables(waiting), { nameTables: false });
    }
    return { status: 'ok', checks: { total, ok: loaded, failed } };
  });
}

/**
 * The liveness answer of both listeners, as the reference relay words it (one check: the process answers), so a
 * probe written against it that reads `checks` reads ours.
 */
export const HEALTHY = Object.freeze({
  status: 'ok',
  checks: Object.freeze({ total: 1, ok: 1, failed: 0 }),
});

/** The tables whose first load waits for their database, as `/ready` and the admin status name them. */
export function waitingTables(waiting: Readiness['waiting']): TableWaiting[] {
  return [...(waiting?.values() ?? [])].map((wait) => ({
    dataset_id: wait.datasetId,
    table_id: wait.tableId,
    code: wait.code,
  }));
}

/**
 * The 503 of `/ready`: what is loaded and how many tables wait for their database; with `nameTables` (the admin
 * listener, the default), which ones. `processes` (the admin listener of `--workers N`) says how many relay
 * processes are down: each counts as none loaded, which the counts alone would blame on the data.
 */
export function notReadyProblem(
  readiness: { readonly total: number; readonly loaded: number; readonly failed: number },
  waiting: readonly TableWaiting[],
  options: {
    readonly nameTables?: boolean;
    readonly processes?: { readonly notRunning: number; readonly total: number };
  } = {},
) {
  const { total, loaded, failed } = readiness;
  const parts = [`${loaded} of ${total} tables loaded`];
  if (waiting.length > 0)
    parts.push(`${waiting.length} waiting for their database (retried until it answers)`);
  const down = options.processes;
  if (down !== undefined && down.notRunning > 0)
    parts.push(
      `${down.notRunning} of ${down.total} relay processes not running or not answering (starting, being started again, or stopped), counted as none loaded`,
    );
  const detail = parts.join('; ');
  return relayProblem('schema.resource_unavailable', detail, {
    extras: {
      total_count: total,
      loaded_count: loaded,
      failed_count: failed,
      not_ready_count: total - loaded,
      // The reference counts entities whose table is missing; `config check` refuses those, so none run.
      unresolved_count: 0,
      waiting_count: waiting.length,
      ...(waiting.length === 0 || options.nameTables === false ? {} : { waiting }),
    },
    headers: { 'retry-after': '5' },
  });
}
