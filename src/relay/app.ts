// createRelayApp: the relay's composition root, readable top to bottom.
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import { createServiceServer } from '../platform/http/create-service-server.ts';
import type { Logger } from '../platform/log.ts';
import type { Random } from '../platform/random.ts';
import { createLocalAdminBackend, type RelayAdminBackend } from './admin/admin-backend.ts';
import { createRelayAdminApp } from './admin/create-relay-admin-app.ts';
import { registerAggregateRoutes } from './aggregates/aggregate-routes.ts';
import { CSV_RESULT_HEADERS } from './aggregates/render-aggregate-csv.ts';
import { buildRelayAuditRecord } from './audit/build-relay-audit-record.ts';
import { buildCatalog } from './catalog/build-catalog.ts';
import type { LoadedRelayConfig } from './config/load-relay-config.ts';
import type { TableConfig } from './config/schema.ts';
import { createAuthenticator } from './create-authenticator.ts';
import { registerMetadataRoutes } from './metadata/routes/register-metadata-routes.ts';
import { createRelayMetrics, type RelayMetrics } from './metrics/relay-metrics.ts';
import { createCursorCodec } from './query/cursor.ts';
import type { RelayRuntime } from './relay-runtime.ts';
import type { RelayState } from './relay-state.ts';
import { changeTokenSource, fileChangeToken } from './reload/change-token.ts';
import { createRefreshScheduler, type RefreshScheduler, refreshOf } from './reload/refresh-scheduler.ts';
import { createReloader, type Reloader } from './reload/reloader.ts';
import { registerDatasetRoutes } from './routes/datasets.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerOpenApiRoutes } from './routes/openapi.ts';
import { registerRecordRoutes } from './routes/records.ts';
import { registerRelationshipRoutes } from './routes/relationships.ts';
import { createPostgresSources } from './sources/postgres/postgres-sources.ts';
import { retryWhileUnavailable, waitingLog } from './sources/postgres/wait-for-database.ts';
import type { SourceError } from './sources/source-error.ts';
import { tableKey } from './store/generation.ts';
import { loadTable } from './store/load-generation.ts';

export interface RelayDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly random: Random;
  readonly fetch?: typeof fetch;
  /** How often a first load retries a table whose database is down (default 5 s). */
  readonly sourceRetryMs?: number;
}

export interface RelayApp {
  readonly app: FastifyInstance;
  /** The admin listener's app, when `server.admin_bind` is set (and not a cluster worker). */
  readonly admin: FastifyInstance | undefined;
  readonly runtime: RelayRuntime;
  readonly reloader: Reloader;
  readonly refresh: RefreshScheduler;
  readonly metrics: RelayMetrics;
  /** Reload, metrics and status of this process, as the admin routes (or a cluster primary) use them. */
  readonly backend: RelayAdminBackend;
  /** Resolves when every source is loaded; rejects with the first load failure. */
  readonly loaded: Promise<void>;
  /** Resolves when the first load starts waiting for an unreachable database (`/ready` says which table). */
  readonly waitingForSources: Promise<void>;
  close(): Promise<void>;
}

export interface RelayAppOptions {
  /** False in a cluster worker: the primary serves the admin listener for every worker. */
  readonly adminListener?: boolean;
  /**
   * True in a cluster worker started again: the other workers serve meanwhile, so it listens only once its data
   * is loaded (a wait for a database included), and a failed first load is a failed start (see startRelay).
   */
  readonly loadBeforeListening?: boolean;
  /**
   * False in a cluster worker: the primary runs every worker's refresh rounds at once (refresh-rounds.ts), so the
   * workers see a source's change together rather than each on a timer of its own.
   */
  readonly refreshTimers?: boolean;
}

export function createRelayApp(
  loaded: LoadedRelayConfig,
  deps: RelayDeps,
  options: RelayAppOptions = {},
): RelayApp {
  const { config, secrets, baseDir } = loaded;
  const catalog = buildCatalog(config);
  const tableCount = config.datasets.reduce((sum, dataset) => sum + dataset.tables.length, 0);
  const state: RelayState = { generation: undefined, readiness: { total: tableCount, loaded: 0, failed: 0 } };
  const metrics = createRelayMetrics(config);
  const postgres = createPostgresSources(config, secrets.sourceUrls, {
    logger: deps.logger,
    now: () => performance.now(),
    // The metric tells apart reads answered (ok), answered with a row the schema refuses, refused for a value the
    // caller sent, and failed.
    onLiveScan: (datasetId, scan) => metrics.table(datasetId, scan.tableId).recordLiveScan(scan),
  });

  const runtime: RelayRuntime = {
    catalog,
    state,
    postgres,
    cursors: createCursorCodec(secrets.cursorSecret),
    authenticate: createAuthenticator(config, secrets, deps),
  };
  const { app, audit } = createServiceServer({
    server: config.server,
    audit: config.audit,
    auditSecret: secrets.auditSecret,
    // A browser client of a CSV aggregate learns its disclosure, freshness and completeness only from these.
    corsHeaders: { expose: CSV_RESULT_HEADERS },
    baseDir,
    deps,
    buildRecord: (request, reply) =>
      buildRelayAuditRecord(request, reply, { secret: secrets.auditSecret, now: deps.clock.now() }),
  });
  // Before any route: each route gets its own request counters as it is registered.
  metrics.routes.instrument(app);

  registerHealthRoutes(app, runtime);
  registerDatasetRoutes(app, runtime);
  registerRecordRoutes(app, runtime);
  registerRelationshipRoutes(app, runtime);
  registerAggregateRoutes(app, runtime);
  const metadata = registerMetadataRoutes(app, runtime, loaded.manifest);
  registerOpenApiRoutes(app, runtime, metadata);

  // Before the first generation, a table whose database is down is retried rather than failing the start.
  const closing = new AbortController();
  let signalWaiting: () => void = () => {};
  const waitingForSources = new Promise<void>((resolve) => {
    signalWaiting = resolve;
  });
  const logWaiting = waitingLog(deps.logger, deps.clock);
  const waitForDatabase = {
    retryMs: deps.sourceRetryMs ?? 5000,
    signal: closing.signal,
    // Only the first load waits: a later reload fails at once and is reported (a refresh tries again later).
    shouldWait: () => reloader.isStarting(),
    onWaiting(datasetId: string, tableId: string, error: SourceError) {
      state.readiness.waiting ??= new Map();
      state.readiness.waiting.set(tableKey(datasetId, tableId), { datasetId, tableId, code: error.code });
      logWaiting(datasetId, tableId, error);
      signalWaiting();
    },
  };

  const changeToken = (datasetId: string, table: TableConfig) => {
    const dataset = config.datasets.find((candidate) => candidate.id === datasetId);
    if (!dataset || refreshOf(dataset, table).mode !== 'mtime') return undefined;
    return changeTokenSource(table, {
      baseDir,
      postgres: (postgresTable) => ({ changeToken: () => postgres.changeToken(postgresTable) }),
    });
  };
  const reloader = createReloader({
    config,
    state,
    clock: deps.clock,
    logger: deps.logger,
    metrics,
    loadTable: async (datasetId, table) => {
      try {
        return await retryWhileUnavailable(
          () => loadTable(config, table, { baseDir, clock: deps.clock, postgres }),
          { ...waitForDatabase, onWaiting: (error) => waitForDatabase.onWaiting(datasetId, table.id, error) },
        );
      } finally {
        // Loaded, or failed for another reason: either way the table no longer waits for its database.
        state.readiness.waiting?.delete(tableKey(datasetId, table.id));
      }
    },
    beginGeneration: () => postgres.shareSnapshots(),
    changeToken,
    fileToken: (_datasetId, table) =>
      table.source.type === 'file' ? fileChangeToken(resolve(baseDir, table.source.path)) : undefined,
  });
  const refresh = createRefreshScheduler({
    config,
    reloader,
    logger: deps.logger,
    clock: deps.clock,
    changeToken,
    settleToken: (_datasetId, table) =>
      table.source.type === 'file' ? fileChangeToken(resolve(baseDir, table.source.path)) : undefined,
  });
  const loadedPromise = reloader.load();
  const startRefresh = () => {
    if (options.refreshTimers !== false) refresh.start();
  };
  loadedPromise.then(
    () => {
      if (!closing.signal.aborted) startRefresh();
    },
    (error: unknown) => {
      // Once the start went ahead without a database, nobody else awaits this load: its failure is logged here,
      // and refresh runs anyway, so the next reload that succeeds (refresh or admin) makes the relay ready. A relay
      // that loads before it listens never goes ahead: the failure is its failed start.
      const wentAhead = state.readiness.waiting !== undefined && !options.loadBeforeListening;
      if (!wentAhead || closing.signal.aborted) return;
      deps.logger.error(
        { err_message: error instanceof Error ? error.message : String(error) },
        'the first load failed after waiting for a database; /ready stays 503 until a reload succeeds',
      );
      startRefresh();
    },
  );

  const backend = createLocalAdminBackend(reloader, metrics, state);
  const admin =
    config.server.admin_bind === undefined || options.adminListener === false
      ? undefined
      : createRelayAdminApp({
          loaded,
          authenticate: runtime.authenticate,
          backend,
          processes: 1,
          requestTimeoutMs: config.server.request_timeout,
          deps,
          writeAudit: (record) => audit.write(record),
        });

  return {
    app,
    admin,
    runtime,
    reloader,
    refresh,
    metrics,
    backend,
    loaded: loadedPromise,
    waitingForSources,
    async close() {
      const stopped = refresh.stop();
      closing.abort();
      await Promise.all([app.close(), admin?.close(), stopped]);
      await Promise.all([audit.close(), postgres.close()]);
    },
  };
}
