// A cluster worker: the relay's public listener on the port the workers share, with its own data generation and
// audit chain, answering the primary over IPC. The admin listener lives in the primary.
import { handStdoutAuditTo } from '../../platform/audit/sinks/stdout-sink.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/log.ts';
import type { Random } from '../../platform/random.ts';
import type { LoadedRelayConfig } from '../config/load-relay-config.ts';
import { type RunningRelay, startRelay } from '../start-relay.ts';
import { tableKey } from '../store/generation.ts';
import { type WorkerMessage, workerAuditPath } from './cluster-messages.ts';
import { CONFIG_DIGEST_ENV, configMismatch } from './config-digest.ts';
import { answerPrimary } from './serve-worker.ts';
import { describeStartFailure } from './start-failure.ts';
import { processChannel, sendToPrimary, stdoutThroughPrimary } from './stdout-through-primary.ts';

/**
 * Hands a worker's failed start to the primary, which reports it (the first start) or logs it with its restart:
 * printed by the worker, it would reach the output once per worker and attempt, outside the structured log.
 */
export function tellPrimaryStartFailed(error: unknown): void {
  sendToPrimary({ kind: 'ambit:failed', ...describeStartFailure(error) });
}

export async function startRelayWorker(
  loaded: LoadedRelayConfig,
  index: number,
  deps: { logger: Logger; clock: Clock; random: Random },
  bind: string | undefined,
  restarted = false,
  /** Stops the start (SIGTERM from the primary, or the primary gone): see startRelay. */
  signal?: AbortSignal,
): Promise<RunningRelay> {
  const send = (message: WorkerMessage) => sendToPrimary(message);
  const audit = loaded.config.audit;
  const own: LoadedRelayConfig =
    audit.path === undefined
      ? loaded
      : {
          ...loaded,
          config: { ...loaded.config, audit: { ...audit, path: workerAuditPath(audit.path, index) } },
        };
  // Standard output is shared with the primary and the other workers: the primary writes it for everyone, whole
  // batches at a time, so lines never cut into each other (stdout-through-primary.ts).
  const restoreStdout =
    audit.sink === 'stdout' ? handStdoutAuditTo(() => stdoutThroughPrimary(processChannel())) : () => {};
  let running: RunningRelay;
  try {
    // A config edited since the primary started is refused before anything is loaded or listened on.
    const mismatch = configMismatch(loaded, process.env[CONFIG_DIGEST_ENV]);
    if (mismatch !== undefined) throw new Error(`worker ${index} did not start: ${mismatch}`);
    // A failed load reaches the primary as a failed start, which it retries later (a restart) or gives up on
    // (the first start), and reports: the caller does not print it again.
    running = await startRelay(own, deps, bind ?? loaded.config.server.bind, {
      adminListener: false,
      refreshTimers: false,
      loadBeforeListening: restarted,
      signal,
    });
  } catch (error) {
    restoreStdout();
    // Stopped, not failed: the primary, stopping too (or gone), hears of it as the worker's exit.
    if (signal?.aborted) throw error;
    tellPrimaryStartFailed(error);
    throw error;
  }
  const { refresh, runtime } = running.relay;
  const stop = answerPrimary(
    running.relay.backend,
    {
      runTable: (datasetId, tableId) => refresh.runTable(datasetId, tableId),
      versionOf: (datasetId, tableId) =>
        runtime.state.generation?.tables.get(tableKey(datasetId, tableId))?.version,
    },
    send,
  );
  send({ kind: 'ambit:listening', url: running.url });
  return {
    ...running,
    async close() {
      stop();
      await running.close();
      restoreStdout();
    },
  };
}
