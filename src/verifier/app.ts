// createVerifierApp: the verifier's composition root, readable top to bottom.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import { createServiceServer } from '../platform/http/create-service-server.ts';
import type { RouteReply, RouteRequest } from '../platform/http/route-types.ts';
import type { Logger } from '../platform/log.ts';
import type { Random } from '../platform/random.ts';
import { createAdminApp } from './admin/create-admin-app.ts';
import { takeBatchItemEvents } from './audit/batch-item-events.ts';
import { buildEvidenceAuditEvent } from './audit/build-evidence-audit-event.ts';
import { buildClaimCatalog, type ClaimCatalog } from './claims/build-claim-catalog.ts';
import { type CelEvaluator, createCelEvaluator } from './claims/create-cel-evaluator.ts';
import type { LoadedVerifierConfig } from './config/load-verifier-config.ts';
import type { SourceConnectionConfig } from './config/schema.ts';
import { createCoalescingReader } from './connectors/create-coalescing-reader.ts';
import type { HttpTransport } from './connectors/create-http-transport.ts';
import { createRelayConnector } from './connectors/create-relay-connector.ts';
import { createVerifierAuthenticator } from './create-verifier-authenticator.ts';
import { auditWriteFailed, SERVICE_PROBLEMS } from './problems.ts';
import { registerBatchEvaluationRoutes } from './routes/batch-evaluations.ts';
import { registerDiscoveryRoutes } from './routes/discovery.ts';
import { registerEvaluationRoutes } from './routes/evaluations.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerOpenApiRoutes } from './routes/openapi.ts';
import { registerRenderRoutes } from './routes/render.ts';
import { useStrictJsonParser } from './routes/strict-json-parser.ts';
import { createEvaluationStore, startPurging } from './state/create-evaluation-store.ts';
import type { EvaluationStore } from './state/evaluation-store.ts';
import type { VerifierRuntime } from './verifier-runtime.ts';

export interface VerifierDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly random: Random;
  /** For OIDC key fetches. */
  readonly fetch?: typeof fetch;
  /** Waits between source retries; tests inject one that does not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly transportFor?: (connection: SourceConnectionConfig) => HttpTransport;
  /** Defaults to the store `state` configures. */
  readonly store?: EvaluationStore;
  /** The script CEL worker threads run; tests give one that fails to load. */
  readonly celWorkerSource?: string;
}

export interface VerifierApp {
  readonly app: FastifyInstance;
  /** The admin listener's app, when `server.admin_bind` is set. */
  readonly admin: FastifyInstance | undefined;
  readonly runtime: VerifierRuntime;
  close(): Promise<void>;
}

export function createVerifierApp(loaded: LoadedVerifierConfig, deps: VerifierDeps): VerifierApp {
  const { config } = loaded;
  const catalog = buildClaimCatalog(config);

  const cel = createCelEvaluator(config.cel, {
    ...(deps.celWorkerSource === undefined ? {} : { workerSource: deps.celWorkerSource }),
    // Each failed start is followed by a pause that doubles up to 30 s, so this is said a few times a minute at most.
    onWorkerStartFailed: (message, retryInMs) =>
      deps.logger.error({ err_message: message, retry_in_ms: retryInMs }, 'CEL worker failed to start'),
  });
  // Workers take a moment to start; start them with the service when any claim needs them.
  if (catalog.ordered.some((claim) => claim.config.rule.type === 'cel')) cel.warm();
  // What has started so far, stopped in reverse if the rest fails (an unopenable audit sink, a bad proxy list):
  // the CEL worker threads would otherwise keep a process that failed to start alive, listening on nothing.
  const started: (() => unknown)[] = [() => cel.close()];
  try {
    return composeVerifierApp(loaded, deps, catalog, cel, started);
  } catch (error) {
    void stopInReverse(started);
    throw error;
  }
}

/** Best effort: the start has failed already, and that error is the one to report. */
async function stopInReverse(started: readonly (() => unknown)[]): Promise<void> {
  for (const stop of [...started].reverse()) {
    try {
      await stop();
    } catch {}
  }
}

function composeVerifierApp(
  loaded: LoadedVerifierConfig,
  deps: VerifierDeps,
  catalog: ClaimCatalog,
  cel: CelEvaluator,
  started: (() => unknown)[],
): VerifierApp {
  const { config, secrets, baseDir } = loaded;
  const connections = config.evidence.source_connections;
  const reader = createCoalescingReader(
    createRelayConnector(connections, secrets.sourceTokens, {
      clock: deps.clock,
      random: deps.random,
      logger: deps.logger,
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
      ...(deps.transportFor ? { transportFor: deps.transportFor } : {}),
    }),
    (lookup) => connections[lookup.binding.connection]?.coalesce_reads === true,
  );
  started.push(() => reader.close());
  const store = deps.store ?? createEvaluationStore(config, secrets, deps);
  started.push(() => store.close());
  // Connects and migrates in the background; until it succeeds, state operations answer 503.
  void store.prepare();
  const stopPurging = startPurging(store, config.state.evaluation_retention, deps.logger);
  started.push(stopPurging);
  const buildRecord = (request: RouteRequest, reply: RouteReply) => {
    const now = deps.clock.now();
    return buildEvidenceAuditEvent(request, reply, {
      secret: secrets.auditSecret,
      now,
      eventId: deps.random.ulid(now),
    });
  };
  const { app, audit } = createServiceServer({
    server: config.server,
    audit: config.audit,
    auditSecret: secrets.auditSecret,
    baseDir,
    deps,
    buildRecord,
    // A batch's item events, written with the batch's own event.
    recordsBefore: (request, reply) =>
      takeBatchItemEvents(request, reply, () => {
        const now = deps.clock.now();
        return { secret: secrets.auditSecret, now, eventId: deps.random.ulid(now) };
      }),
    auditWriteFailed,
    // Batch evaluations take an Idempotency-Key and mark a replay with idempotent-replayed.
    corsHeaders: { allow: ['idempotency-key'], expose: ['idempotent-replayed'] },
    serviceProblems: SERVICE_PROBLEMS,
    // A rule still running for a request whose client went away is stopped, its worker freed for others; a read
    // on its way to a relay is dropped, its max_in_flight slot freed.
    onClientGone: () => {
      cel.recheck();
      reader.recheck?.();
    },
  });
  started.push(
    () => audit.close(),
    () => app.close(),
  );
  const runtime: VerifierRuntime = {
    config,
    catalog,
    engine: { catalog, reader, cel, bindingConcurrency: config.evidence.concurrency.bindings },
    store,
    clock: deps.clock,
    random: deps.random,
    hashSecret: secrets.auditSecret,
    authenticate: createVerifierAuthenticator(config, secrets, deps),
    writeAuditRecords(records) {
      // Queued with the rest of this event-loop turn's records and written in one append (group commit) rather
      // than one append per item; resolves once they are written, rejects as a direct write would have thrown.
      return new Promise<void>((resolve, reject) => {
        let pending = records.length;
        let failure: unknown;
        if (pending === 0) resolve();
        for (const record of records) {
          audit.enqueue(record, (error) => {
            if (error !== undefined && failure === undefined) failure = error;
            if (--pending > 0) return;
            if (failure === undefined) resolve();
            else reject(failure);
          });
        }
      });
    },
  };

  useStrictJsonParser(app);
  registerHealthRoutes(app, runtime);
  registerOpenApiRoutes(app, runtime);
  registerDiscoveryRoutes(app, runtime);
  registerEvaluationRoutes(app, runtime);
  registerBatchEvaluationRoutes(app, runtime);
  registerRenderRoutes(app, runtime);
  const admin =
    config.server.admin_bind === undefined
      ? undefined
      : createAdminApp({ server: config.server, runtime, audit, deps, buildRecord });

  return {
    app,
    admin,
    runtime,
    async close() {
      stopPurging();
      // Both listeners stop taking connections at once; each drains what it has in flight.
      await Promise.all([app.close(), admin?.close()]);
      reader.close();
      await cel.close();
      await store.close();
      await audit.close();
    },
  };
}
