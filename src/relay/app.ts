// createRelayApp: the relay's composition root, readable top to bottom.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import { createServiceServer } from '../platform/http/create-service-server.ts';
import type { Logger } from '../platform/log.ts';
import type { Random } from '../platform/random.ts';
import { registerAggregateRoutes } from './aggregates/aggregate-routes.ts';
import { buildRelayAuditRecord } from './audit/build-relay-audit-record.ts';
import { buildCatalog } from './catalog/build-catalog.ts';
import type { LoadedRelayConfig } from './config/load-relay-config.ts';
import { createAuthenticator } from './create-authenticator.ts';
import { registerMetadataRoutes } from './metadata/routes/register-metadata-routes.ts';
import { createCursorCodec } from './query/cursor.ts';
import type { RelayRuntime } from './relay-runtime.ts';
import type { RelayState } from './relay-state.ts';
import { registerDatasetRoutes } from './routes/datasets.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerOpenApiRoutes } from './routes/openapi.ts';
import { registerRecordRoutes } from './routes/records.ts';
import { registerRelationshipRoutes } from './routes/relationships.ts';
import { loadGeneration } from './store/load-generation.ts';

export interface RelayDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly random: Random;
  readonly fetch?: typeof fetch;
}

export interface RelayApp {
  readonly app: FastifyInstance;
  readonly runtime: RelayRuntime;
  /** Resolves when every source is loaded; rejects with the first load failure. */
  readonly loaded: Promise<void>;
  close(): Promise<void>;
}

export function createRelayApp(loaded: LoadedRelayConfig, deps: RelayDeps): RelayApp {
  const { config, secrets, baseDir } = loaded;
  const catalog = buildCatalog(config);
  const tableCount = config.datasets.reduce((sum, dataset) => sum + dataset.tables.length, 0);
  const state: RelayState = { generation: undefined, readiness: { total: tableCount, loaded: 0, failed: 0 } };

  const runtime: RelayRuntime = {
    catalog,
    state,
    cursors: createCursorCodec(secrets.cursorSecret),
    authenticate: createAuthenticator(config, secrets, deps),
  };
  const { app, audit } = createServiceServer({
    server: config.server,
    audit: config.audit,
    auditSecret: secrets.auditSecret,
    baseDir,
    deps,
    buildRecord: (request, reply) =>
      buildRelayAuditRecord(request, reply, { secret: secrets.auditSecret, now: deps.clock.now() }),
  });

  registerHealthRoutes(app, runtime);
  registerOpenApiRoutes(app, runtime);
  registerDatasetRoutes(app, runtime);
  registerRecordRoutes(app, runtime);
  registerRelationshipRoutes(app, runtime);
  registerAggregateRoutes(app, runtime);
  registerMetadataRoutes(app, runtime, loaded.manifest);

  const loadedPromise = loadGeneration(config, {
    baseDir,
    clock: deps.clock,
    onTableLoaded: (datasetId, table) => {
      state.readiness.loaded++;
      deps.logger.info({ dataset_id: datasetId, table_id: table.id, rows: table.rowCount }, 'table loaded');
    },
  }).then(
    (generation) => {
      state.generation = generation;
    },
    (error: unknown) => {
      state.readiness.failed++;
      throw error;
    },
  );
  loadedPromise.catch(() => {});

  return {
    app,
    runtime,
    loaded: loadedPromise,
    async close() {
      await app.close();
      await audit.close();
    },
  };
}
