// The relay's admin listener (`server.admin_bind`): reload, metrics, capabilities and posture on an address of
// their own. Nothing here is mounted on the public listener or described in its OpenAPI document.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/auth/principal.ts';
import type { Clock } from '../../platform/clock.ts';
import {
  adminScopeGuard,
  createAdminServer,
  ignoreRequestBodies,
  registerMetricsRoute,
} from '../../platform/http/create-admin-server.ts';
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import type { Logger } from '../../platform/log.ts';
import type { Random } from '../../platform/random.ts';
import { buildRelayAuditRecord } from '../audit/build-relay-audit-record.ts';
import type { LoadedRelayConfig } from '../config/load-relay-config.ts';
import { type DatasetConfig, ID_PATTERN, type RelayConfig } from '../config/schema.ts';
import { createAdminRouteMetrics } from '../metrics/relay-metrics.ts';
import { relayProblem } from '../problems.ts';
import type { ReloadOutcome, TableWaiting } from '../reload/reloader.ts';
import { HEALTHY, notReadyProblem } from '../routes/health.ts';
import { isLiveTable } from '../sources/postgres/postgres-sources.ts';
import type { RelayAdminBackend } from './admin-backend.ts';
import { type AdminRouteInfo, buildCapabilities, buildPosture, POSTURE_TIERS } from './posture.ts';
import { reloadsAtStop } from './reloads-at-stop.ts';

export const ADMIN_SCOPE = 'relay:admin';
export const OPS_READ_SCOPE = 'relay:ops_read';
export const METRICS_READ_SCOPE = 'relay:metrics_read';

export const ADMIN_ROUTES: readonly AdminRouteInfo[] = [
  { method: 'GET', path: '/healthz', scope: null },
  { method: 'GET', path: '/ready', scope: null },
  { method: 'GET', path: '/metrics', scope: METRICS_READ_SCOPE },
  { method: 'GET', path: '/admin/v1/capabilities', scope: OPS_READ_SCOPE },
  { method: 'GET', path: '/admin/v1/posture', scope: OPS_READ_SCOPE },
  { method: 'POST', path: '/admin/v1/reload', scope: ADMIN_SCOPE },
  { method: 'POST', path: '/admin/v1/datasets/{dataset_id}/tables/{table_id}/reload', scope: ADMIN_SCOPE },
];

export interface RelayAdminAppOptions {
  readonly loaded: LoadedRelayConfig;
  readonly authenticate: (request: FastifyRequest) => Principal | Promise<Principal>;
  readonly backend: RelayAdminBackend;
  /** Relay processes behind this listener (1, or the worker count). */
  readonly processes: number;
  readonly requestTimeoutMs: number;
  readonly deps: { readonly logger: Logger; readonly clock: Clock; readonly random: Random };
  /** Where the listener's audit records go (the relay's audit sink); none are built without it. */
  readonly writeAudit?: (record: string) => void;
}

export function createRelayAdminApp(options: RelayAdminAppOptions): FastifyInstance {
  const { loaded, backend, authenticate, writeAudit } = options;
  const { clock } = options.deps;
  // Audited as on the public listener, probes included only when `audit.include_health` says so.
  const beforeSend =
    writeAudit &&
    ((request: RouteRequest, reply: RouteReply) => {
      const kind = request.ctx.audit.endpointKind;
      if (!loaded.config.audit.include_health && (kind === 'health' || kind === 'ready')) return;
      writeAudit(
        buildRelayAuditRecord(request, reply, { secret: loaded.secrets.auditSecret, now: clock.now() }),
      );
    });
  const app = createAdminServer({
    requestTimeoutMs: options.requestTimeoutMs,
    deps: options.deps,
    ...(beforeSend === undefined ? {} : { beforeSend }),
  });
  // Before any route, as on the public listener; counted by the process that serves this listener (the primary
  // under `--workers`), beside the families of the relay processes.
  const routeMetrics = createAdminRouteMetrics();
  routeMetrics.instrument(app);
  const admin = adminScopeGuard(authenticate, ADMIN_SCOPE);
  const opsRead = adminScopeGuard(authenticate, OPS_READ_SCOPE);

  app.get('/healthz', async (request) => {
    request.ctx.audit.endpointKind = 'health';
    return HEALTHY;
  });

  app.get('/ready', async (request) => {
    request.ctx.audit.endpointKind = 'ready';
    const statuses = await backend.status();
    const total = statuses[0]?.readiness.total ?? 0;
    const failed = Math.max(...statuses.map((status) => status.readiness.failed));
    const loadedCount = Math.min(...statuses.map((status) => status.readiness.loaded));
    if (!statuses.every((status) => status.ready)) {
      // Each table once, however many processes wait for it.
      const waiting = new Map<string, TableWaiting>();
      for (const status of statuses) {
        for (const wait of status.waiting) waiting.set(`${wait.dataset_id}/${wait.table_id}`, wait);
      }
      const notRunning = statuses.filter((status) => !status.running).length;
      throw notReadyProblem({ total, loaded: loadedCount, failed }, [...waiting.values()], {
        processes: { notRunning, total: statuses.length },
      });
    }
    return { status: 'ok', checks: { total, ok: loadedCount, failed } };
  });

  registerMetricsRoute(app, adminScopeGuard(authenticate, METRICS_READ_SCOPE), async () => [
    ...(await backend.metrics()),
    routeMetrics.families(),
  ]);

  app.get('/admin/v1/capabilities', { onRequest: opsRead }, async () =>
    buildCapabilities(loaded, ADMIN_ROUTES, options.processes),
  );

  app.get<{ Querystring: { tier?: string } }>(
    '/admin/v1/posture',
    { onRequest: opsRead },
    async (request) => {
      const tier: unknown = request.query.tier;
      if (Array.isArray(tier)) {
        throw relayProblem('admin.posture_tier_unsupported', '`tier` may be given once');
      }
      if (tier !== undefined && !(POSTURE_TIERS as readonly string[]).includes(tier as string)) {
        throw relayProblem('admin.posture_tier_unsupported', `supported tiers: ${POSTURE_TIERS.join(', ')}`);
      }
      return buildPosture(loaded, await backend.status());
    },
  );

  // A reload still running when the relay stops is answered, and audited, within the listener's drain.
  const reloads = reloadsAtStop(options.requestTimeoutMs, options.deps.logger);
  app.addHook('preClose', (done) => {
    reloads.stop();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    reloads.closed();
    done();
  });

  // The reload routes take no body: whatever is sent (within the admin listener's body limit) is ignored.
  app.register(async (scope) => {
    ignoreRequestBodies(scope);
    scope.post('/admin/v1/reload', { onRequest: admin }, async (request) => {
      untimed(request);
      const outcome = await reloads.bounded(answered(backend.reloadAll(), options.deps.logger));
      if (outcome.firstLoadRunning) throw firstLoadRunning(outcome.firstLoadRunning.waiting);
      if (!outcome.ok) throw reloadFailed(outcome, 'all', loaded.config);
      return { status: 'ok', counts: outcome.counts, ...differing(outcome, options.deps.logger) };
    });

    scope.post<{ Params: { dataset_id: string; table_id: string } }>(
      '/admin/v1/datasets/:dataset_id/tables/:table_id/reload',
      { onRequest: admin },
      async (request) => {
        const { dataset_id: datasetId, table_id: tableId } = request.params;
        const dataset = loaded.config.datasets.find((candidate) => candidate.id === datasetId);
        if (!dataset?.tables.some((table) => table.id === tableId)) {
          throw unknownTable(loaded.config, dataset, datasetId, tableId);
        }
        request.ctx.audit.datasetId = datasetId;
        request.ctx.audit.tableId = tableId;
        untimed(request);
        const outcome = await reloads.bounded(
          answered(backend.reloadTable(datasetId, tableId), options.deps.logger),
        );
        if (outcome.firstLoadRunning) throw firstLoadRunning(outcome.firstLoadRunning.waiting);
        if (!outcome.ok) throw reloadFailed(outcome, 'table', loaded.config);
        // 1, unless nothing was served yet: then every table loaded, as at startup.
        return {
          status: 'ok',
          counts: { reloaded: outcome.counts.succeeded },
          ...differing(outcome, options.deps.logger),
        };
      },
    );
  });

  return app;
}

/** Which of the two names is unknown, with the ones served: the caller holds `relay:admin` and wrote the config. */
function unknownTable(
  config: RelayConfig,
  dataset: DatasetConfig | undefined,
  datasetId: string,
  tableId: string,
) {
  const detail =
    dataset === undefined
      ? `no ${named('dataset', datasetId)}: the datasets are ${listed(config.datasets)}`
      : `no ${named('table', tableId)} in dataset ${dataset.id}: its tables are ${listed(dataset.tables)}`;
  return relayProblem('admin.unknown_resource', detail);
}

/** An id from the path as said back: a long one cut short, and anything that is no id (markup, control bytes) not at all. */
function named(kind: string, value: string): string {
  if (!ID_PATTERN.test(value)) return `${kind} of that id (ids match ${ID_PATTERN.source})`;
  return `${kind} ${value.length > 64 ? `${value.slice(0, 64)}…` : value}`;
}

function listed(items: readonly { readonly id: string }[]): string {
  return atMost(items.map((item) => item.id));
}

/** Names joined for a detail, the first 20 only: a relay may have hundreds of tables (the extras list them all). */
function atMost(names: readonly string[]): string {
  const shown = names.slice(0, 20);
  return names.length > shown.length
    ? `${shown.join(', ')} and ${names.length - shown.length} more`
    : shown.join(', ');
}

/**
 * A reload is answered with its outcome however long it takes (a large table can take longer than the request
 * time-out, and a 504 would leave the operator without it while it goes on), unless the relay stops meanwhile
 * (reloads-at-stop.ts); its caller is authenticated by now.
 */
function untimed(request: FastifyRequest): void {
  request.ctx.untimed = true;
}

/**
 * The outcome of a reload; a backend rejects only when no relay process answered (under `--workers`, every worker
 * stopping, being started again, or not answering): a retryable 503, since it may not have run anywhere.
 */
async function answered(reload: Promise<ReloadOutcome>, logger: Logger): Promise<ReloadOutcome> {
  try {
    return await reload;
  } catch (error) {
    logger.warn(
      { err_message: error instanceof Error ? error.message : String(error) },
      'no relay process answered the reload',
    );
    throw relayProblem(
      'schema.resource_unavailable',
      'no relay process answered the reload (they are stopping, being started again, or not answering); it may not have run: reload again once /ready answers 200',
      { headers: { 'retry-after': '5' } },
    );
  }
}

/**
 * Under `--workers`: the tables whose data differs between processes although each reloaded them (the source
 * changed between their reads, twice). Their answers, ETags and cursors differ until a reload agrees.
 */
function differing(
  outcome: ReloadOutcome,
  logger: Logger,
): { differing_tables?: ReloadOutcome['differing'] } {
  const tables = outcome.differing;
  if (tables === undefined || tables.length === 0) return {};
  logger.warn(
    { tables: tables.map((table) => `${table.dataset_id}/${table.table_id}`) },
    'relay processes serve different data after the reload: the source changed while they read it; answers, ETags and cursors differ between them until a reload agrees',
  );
  return { differing_tables: tables };
}

/** A reload asked before the first load is over: answered at once, nothing queued (the first load reads it all). */
function firstLoadRunning(waiting: readonly TableWaiting[]) {
  const names = waiting.map((wait) => `${wait.dataset_id}/${wait.table_id}`);
  const detail =
    waiting.length === 0
      ? 'the first load is not over; nothing was reloaded (the first load reads every source)'
      : `the first load is waiting for the database of ${atMost(names)} (retried until it answers); nothing was reloaded`;
  return relayProblem('schema.resource_unavailable', detail, {
    extras: waiting.length === 0 ? {} : { waiting },
    headers: { 'retry-after': '5' },
  });
}

function reloadFailed(outcome: ReloadOutcome, scope: 'all' | 'table', config: RelayConfig) {
  const names = outcome.failures.map(
    (failure) => `${failure.dataset_id}/${failure.table_id} (${failure.code})`,
  );
  const split = outcome.splitProcesses;
  const failed = `${atMost(names)} failed to load`;
  const served = stillServed(outcome, scope, config);
  const detail =
    split === undefined
      ? `${failed}; ${served}`
      : served === LIVE_READS_GO_ON
        ? `${failed} in ${split.failed} of ${split.total} relay processes; ${served} in all of them`
        : `${failed} in ${split.failed} of ${split.total} relay processes, which still serve the previous data while the others serve the new: answers differ between processes until a reload succeeds in all of them`;
  return relayProblem('admin.reload_failed', detail, {
    extras: {
      counts: outcome.counts,
      failures: outcome.failures,
      ...(split === undefined ? {} : { processes: split }),
    },
  });
}

const LIVE_READS_GO_ON = 'live reads continue against the database';

/** What the relay serves after a failed reload. A live table holds no data: its reads go on querying the database. */
function stillServed(outcome: ReloadOutcome, scope: 'all' | 'table', config: RelayConfig): string {
  if (outcome.generation === undefined && !outcome.generationsDiffer)
    return 'nothing is served yet (the first load failed too)';
  const isLive = (datasetId: string, tableId: string) =>
    config.datasets
      .find((dataset) => dataset.id === datasetId)
      ?.tables.some((table) => table.id === tableId && isLiveTable(table)) === true;
  const live = outcome.failures.filter((failure) => isLive(failure.dataset_id, failure.table_id)).length;
  if (live === 0) return 'the previous data is still served';
  if (live < outcome.failures.length) return `the previous data is still served (${LIVE_READS_GO_ON})`;
  // Nothing was swapped: a reload of everything leaves the snapshot tables with the data they had.
  const snapshots = config.datasets.some((dataset) => dataset.tables.some((table) => !isLiveTable(table)));
  return scope === 'all' && snapshots
    ? `${LIVE_READS_GO_ON}, and the other tables keep their previous data`
    : LIVE_READS_GO_ON;
}
