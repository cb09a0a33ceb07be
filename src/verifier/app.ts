// createVerifierApp: the verifier's composition root, readable top to bottom.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import { createServiceServer } from '../platform/http/create-service-server.ts';
import type { Logger } from '../platform/log.ts';
import type { Random } from '../platform/random.ts';
import { buildEvidenceAuditEvent } from './audit/build-evidence-audit-event.ts';
import { buildClaimCatalog } from './claims/build-claim-catalog.ts';
import { createCelEvaluator } from './claims/create-cel-evaluator.ts';
import type { LoadedVerifierConfig } from './config/load-verifier-config.ts';
import type { SourceConnectionConfig } from './config/schema.ts';
import type { HttpTransport } from './connectors/create-http-transport.ts';
import { createRelayConnector } from './connectors/create-relay-connector.ts';
import { createVerifierAuthenticator } from './create-verifier-authenticator.ts';
import { registerDiscoveryRoutes } from './routes/discovery.ts';
import { registerEvaluationRoutes } from './routes/evaluations.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerOpenApiRoutes } from './routes/openapi.ts';
import { createMemoryEvaluationStore } from './state/create-memory-evaluation-store.ts';
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
  /** Defaults to the memory store of `state`. */
  readonly store?: EvaluationStore;
}

export interface VerifierApp {
  readonly app: FastifyInstance;
  readonly runtime: VerifierRuntime;
  close(): Promise<void>;
}

export function createVerifierApp(loaded: LoadedVerifierConfig, deps: VerifierDeps): VerifierApp {
  const { config, secrets, baseDir } = loaded;
  const catalog = buildClaimCatalog(config);

  const cel = createCelEvaluator(config.cel);
  // Workers take a moment to start; start them with the service when any claim needs them.
  if (catalog.ordered.some((claim) => claim.config.rule.type === 'cel')) cel.warm();
  const reader = createRelayConnector(config.evidence.source_connections, secrets.sourceTokens, {
    clock: deps.clock,
    random: deps.random,
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    ...(deps.transportFor ? { transportFor: deps.transportFor } : {}),
  });
  const store =
    deps.store ??
    createMemoryEvaluationStore({ clock: deps.clock, maxEntries: config.state.max_memory_evaluations });
  const runtime: VerifierRuntime = {
    config,
    catalog,
    engine: { catalog, reader, cel, bindingConcurrency: config.evidence.concurrency.bindings },
    store,
    clock: deps.clock,
    random: deps.random,
    hashSecret: secrets.auditSecret,
    authenticate: createVerifierAuthenticator(config, secrets, deps),
  };
  const { app, audit } = createServiceServer({
    server: config.server,
    audit: config.audit,
    auditSecret: secrets.auditSecret,
    baseDir,
    deps,
    buildRecord(request, reply) {
      const now = deps.clock.now();
      return buildEvidenceAuditEvent(request, reply, {
        secret: secrets.auditSecret,
        now,
        eventId: deps.random.ulid(now),
      });
    },
  });

  registerHealthRoutes(app, runtime);
  registerOpenApiRoutes(app, runtime);
  registerDiscoveryRoutes(app, runtime);
  registerEvaluationRoutes(app, runtime);

  return {
    app,
    runtime,
    async close() {
      await app.close();
      reader.close();
      await cel.close();
      await store.close();
      await audit.close();
    },
  };
}
