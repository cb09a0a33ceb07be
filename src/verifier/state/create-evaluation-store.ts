// The state store the config asks for: memory (one process) or PostgreSQL (shared by every instance).
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/log.ts';
import type { VerifierSecrets } from '../config/resolve-verifier-secrets.ts';
import type { VerifierConfig } from '../config/schema.ts';
import { auditCodeOf } from '../connectors/failure-reason.ts';
import { createMemoryEvaluationStore } from './create-memory-evaluation-store.ts';
import { createPostgresEvaluationStore } from './create-postgres-evaluation-store.ts';
import type { EvaluationStore } from './evaluation-store.ts';

export function createEvaluationStore(
  config: VerifierConfig,
  secrets: VerifierSecrets,
  deps: { clock: Clock; logger: Logger },
): EvaluationStore {
  const { state } = config;
  if (state.storage === 'postgresql' && state.postgresql && secrets.stateUrl) {
    return createPostgresEvaluationStore({
      url: secrets.stateUrl,
      maxConnections: state.postgresql.max_connections,
      connectTimeoutMs: state.postgresql.connect_timeout,
      operationTimeoutMs: state.postgresql.operation_timeout,
      clock: deps.clock,
      logger: deps.logger,
    });
  }
  return createMemoryEvaluationStore({
    clock: deps.clock,
    maxEntries: state.max_memory_evaluations,
    maxEvaluationBytes: state.max_memory_evaluation_bytes,
    maxIdempotencyRecords: state.max_memory_idempotency_records,
    maxIdempotencyBytes: state.max_memory_idempotency_bytes,
  });
}

/**
 * Purges expired records now and then; a failure (database down) is logged and retried at the next tick. A purge
 * still running (a long backlog) is not joined by another.
 */
export function startPurging(store: EvaluationStore, retentionMs: number, logger: Logger): () => void {
  let running = false;
  const timer = setInterval(
    () => {
      if (running) return;
      running = true;
      store
        .purgeExpired()
        .catch((error: unknown) => {
          logger.warn({ err_code: auditCodeOf(error) ?? 'unknown' }, 'state store purge failed');
        })
        .finally(() => {
          running = false;
        });
    },
    Math.min(retentionMs, 60_000),
  );
  timer.unref();
  return () => clearInterval(timer);
}
