// `ambit relay serve --workers N`: the primary process. It forks N workers that share the public port (node:cluster
// hands each accepted connection to a worker), serves the admin listener itself, and fans reloads, refresh rounds,
// metrics and status out to every worker. Workers that die are started again (until one starts, however long that takes;
// ever more slowly while they keep dying soon after starting); on shutdown every worker drains first.
import cluster, { type Worker } from 'node:cluster';
import { createConfiguredAuditWriter } from '../../platform/audit/create-audit-writer.ts';
import { writeFully } from '../../platform/audit/sinks/write-fully.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/log.ts';
import type { MetricFamily } from '../../platform/metrics/metric-family.ts';
import type { Random } from '../../platform/random.ts';
import { untilAborted } from '../../platform/until-aborted.ts';
import type { ProcessStatus, RelayAdminBackend } from '../admin/admin-backend.ts';
import { createRelayAdminApp } from '../admin/create-relay-admin-app.ts';
import type { LoadedRelayConfig } from '../config/load-relay-config.ts';
import { createAuthenticator } from '../create-authenticator.ts';
import { configuredProcessesFamily } from '../metrics/relay-metrics.ts';
import type { ReloadOutcome } from '../reload/reloader.ts';
import { listenOn } from '../start-relay.ts';
import { agreeAtStart } from './agree-at-start.ts';
import { CarriedCounts, scrapeSlot } from './carried-counts.ts';
import {
  asWorkerMessage,
  WORKER_INDEX_ENV,
  WORKER_RESTARTED_ENV,
  type WorkerOperation,
} from './cluster-messages.ts';
import { CONFIG_DIGEST_ENV, configDigest } from './config-digest.ts';
import { MissedReloads, type ReloadOperation } from './missed-reloads.ts';
import { firstLoadRunning, notReady, notRunningFamilies } from './not-running.ts';
import { type RefreshAnswer, startRefreshRounds } from './refresh-rounds.ts';
import { reloadEverywhere } from './reload-everywhere.ts';
import { restartDelay, STABLE_RUN_MS } from './restart-delay.ts';
import { endedWhileStarting, startFailureError } from './start-failure.ts';
import { STDOUT_FIRST_STALL_MS, writeWorkerBatch } from './stdout-through-primary.ts';
import { whileAnswering } from './while-answering.ts';
import { createWorkerRequests } from './worker-requests.ts';

export interface RunningPrimary {
  /** The public URL every worker serves. */
  readonly url: string;
  readonly adminUrl: string | undefined;
  close(): Promise<void>;
}

interface Slot {
  readonly index: number;
  worker: Worker;
  listening: boolean;
  /** The public URL the worker reported (the same for every worker: they share the port). */
  url: string | undefined;
  /** The next restart attempt, while the worker is down. */
  restart: NodeJS.Timeout | undefined;
  /** The last restart's attempt number (0: never restarted), and when the current process started to serve. */
  attempt: number;
  startedAt: number | undefined;
  /** The current process's last metrics scrape. */
  scraped: MetricFamily[] | undefined;
  /** Counts of the slot's earlier processes, so that sums never go down. */
  readonly carried: CarriedCounts;
}

/**
 * Status and metrics must answer quickly (within the admin request's own time-out, so that a silent worker is
 * reported as not running rather than the request failing 504); reloads and refresh rounds (LOADS) take as long as
 * loading the data does.
 */
const QUICK_TIMEOUT_MS = 5000;
const LOADS: ReadonlySet<WorkerOperation['op']> = new Set(['reload-all', 'reload-table', 'refresh-table']);
/** Beyond a worker's drain (at most twice the request timeout), time to close its audit file and exit. */
const STOP_GRACE_MS = 5000;

export async function startRelayPrimary(
  loaded: LoadedRelayConfig,
  workers: number,
  deps: { logger: Logger; clock: Clock; random: Random },
  /** Stops the start (SIGINT or SIGTERM while the workers load): they are stopped, and the start rejects. */
  signal?: AbortSignal,
): Promise<RunningPrimary> {
  signal?.throwIfAborted();
  const { config, secrets } = loaded;
  const { logger } = deps;
  const slots: Slot[] = [];
  const requests = createWorkerRequests();
  // Each worker reads the config file itself: it starts only on the config this process started with.
  const digest = configDigest(loaded);
  const missedReloads = new MissedReloads();
  let closing = false;
  // With `audit.sink: stdout` the primary is the one writer of standard output: the workers' batches and its own
  // admin records (its stdout sink) are each written with one synchronous write, on this thread.
  const writeAuditBatch =
    config.audit.sink === 'stdout'
      ? (data: Buffer) => writeFully(1, data, { firstStallMs: STDOUT_FIRST_STALL_MS, completeLater: true })
      : () => {
          throw new Error('the audit sink is not stdout');
        };

  const onMessage = (worker: Worker, value: unknown) => requests.onMessage(worker, value);
  cluster.on('message', onMessage);

  const listening = () => slots.filter((slot) => slot.listening);

  const quickMs = Math.min(QUICK_TIMEOUT_MS, Math.ceil(config.server.request_timeout / 2));
  // A worker that leaves a ping unanswered for as long as a drain may last is left out of a reload's answer.
  const silentMs = 2 * config.server.request_timeout + STOP_GRACE_MS;
  const ask = <T>(slot: Slot, operation: WorkerOperation): Promise<T> => {
    const { worker } = slot;
    const label = `worker ${slot.index}`;
    if (!LOADS.has(operation.op)) return requests.ask<T>(worker, label, operation, quickMs);
    return whileAnswering(
      requests.ask<T>(worker, label, operation),
      (timeoutMs) => requests.ask(worker, label, { op: 'ping' }, timeoutMs),
      { everyMs: quickMs, silentMs, label },
    );
  };

  // A worker started again loads before it listens (the shared port hands it connections from then on), so the
  // others serve until it is loaded. At the first start no worker could serve: each listens at once, and /ready
  // answers 503 while it loads.
  const fork = (index: number, restarted: boolean): Promise<void> => {
    let worker: Worker;
    try {
      // Thrown for some spawn failures (ENOMEM): a failed start, retried like one, not a crash of the primary.
      worker = cluster.fork({
        [WORKER_INDEX_ENV]: String(index),
        [WORKER_RESTARTED_ENV]: restarted ? '1' : '0',
        [CONFIG_DIGEST_ENV]: digest,
      });
    } catch (error) {
      return Promise.reject(error);
    }
    const existing = slots.find((slot) => slot.index === index);
    const slot = existing ?? {
      index,
      worker,
      listening: false,
      url: undefined,
      restart: undefined,
      attempt: 0,
      startedAt: undefined,
      scraped: undefined,
      carried: new CarriedCounts(),
    };
    slot.worker = worker;
    slot.listening = false;
    if (!existing) slots.push(slot);
    return new Promise((resolveStarted, reject) => {
      let started = false;
      worker.on('message', (value: unknown) => {
        const message = asWorkerMessage(value);
        if (message?.kind === 'ambit:listening') {
          slot.url = message.url;
          started = true;
          // Counted as running (and asked to reload) only once it has caught up with the reloads it missed.
          void catchUp(slot, worker).then(() => {
            if (slot.worker !== worker || !worker.isConnected()) return;
            slot.listening = true;
            slot.startedAt = deps.clock.now();
            resolveStarted();
          });
        } else if (message?.kind === 'ambit:failed' && !started) {
          // Of the kind it was in the worker (a load, a config or a listen error): reported as one process would.
          reject(startFailureError(message));
        } else if (message?.kind === 'ambit:audit') {
          writeWorkerBatch(worker, message, writeAuditBatch);
        }
      });
      // A send to a worker whose channel is closing fails through its callback; anything else is only logged.
      worker.on('error', (error: Error) => {
        // A process that could not be spawned (ENOENT, EAGAIN) reports only this, never 'exit'.
        if (worker.process.pid === undefined) {
          reject(new Error(`worker ${index} could not be started: ${error.message}`));
          return;
        }
        logger.warn({ worker: index, err_message: error.message }, 'relay worker channel error');
      });
      // A worker on its way out (its channel closed before it exits) is asked nothing more.
      worker.on('disconnect', () => {
        slot.listening = false;
        requests.abandon(worker, `worker ${index} disconnected`);
      });
      worker.on('exit', (code, signal) => {
        slot.listening = false;
        missedReloads.forget(index);
        requests.abandon(worker, `worker ${index} exited`);
        if (slot.scraped !== undefined) slot.carried.add(slot.scraped);
        slot.scraped = undefined;
        if (!started) {
          reject(endedWhileStarting(index, code, signal));
          return;
        }
        if (closing) return;
        const ran = slot.startedAt === undefined ? 0 : deps.clock.now() - slot.startedAt;
        const attempt = ran < STABLE_RUN_MS ? slot.attempt + 1 : 1;
        logger.error(
          { worker: index, code, signal, restart_in_ms: restartDelay(attempt) },
          'relay worker exited; starting it again',
        );
        restart(slot, attempt);
      });
    });
  };

  /** Runs, in a worker that has just loaded, the reloads asked while it was loading, until none is left. */
  const catchUp = async (slot: Slot, worker: Worker): Promise<void> => {
    for (let missed = missedReloads.take(slot.index); missed.length > 0; ) {
      for (const reload of missed) {
        if (slot.worker !== worker) return;
        const failure = await ask<ReloadOutcome>(slot, reload).then(
          (outcome) =>
            outcome.ok ? undefined : outcome.failures.map((f) => `${f.table_id}: ${f.code}`).join(', '),
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
        if (failure !== undefined)
          logger.error(
            { worker: slot.index, err_message: failure },
            'a reload asked while the worker was starting failed in it; it serves the data it loaded',
          );
      }
      missed = missedReloads.take(slot.index);
    }
  };

  // The timer is not unref'd: with every worker down it is what keeps the primary (and its port) alive.
  const restart = (slot: Slot, attempt: number): void => {
    const delay = restartDelay(attempt);
    slot.attempt = attempt;
    slot.startedAt = undefined;
    slot.restart = setTimeout(() => {
      slot.restart = undefined;
      if (closing) return;
      fork(slot.index, true).then(
        () => logger.info({ worker: slot.index, attempt }, 'relay worker started again'),
        (error: unknown) => {
          if (closing) return;
          // The message is a load error's (code, table, row and column, never a cell value) or an exit code.
          logger.error(
            {
              worker: slot.index,
              attempt,
              err_message: error instanceof Error ? error.message : String(error),
              retry_in_ms: restartDelay(attempt + 1),
            },
            'restart failed; trying again',
          );
          restart(slot, attempt + 1);
        },
      );
    }, delay);
  };

  const stopWorkers = async (): Promise<void> => {
    closing = true;
    for (const slot of slots) clearTimeout(slot.restart);
    const exits = slots
      .filter((slot) => !slot.worker.isDead())
      .map((slot) => {
        const exited = new Promise<void>((done) => slot.worker.once('exit', () => done()));
        // Each worker drains its own in-flight requests before it exits.
        slot.worker.process.kill('SIGTERM');
        return exited;
      });
    // A worker still there once its drain is over is hung (it handles no signal): it is killed, so that the
    // primary neither waits for it forever nor exits leaving it behind.
    const hung = setTimeout(
      () => {
        for (const slot of slots) {
          if (slot.worker.isDead()) continue;
          // Whatever it still had in flight is cut: said, so that those clients' errors can be explained.
          logger.warn(
            { worker: slot.index, pid: slot.worker.process.pid },
            'relay worker still running after its drain; killed',
          );
          slot.worker.process.kill('SIGKILL');
        }
      },
      2 * config.server.request_timeout + STOP_GRACE_MS,
    );
    await Promise.all(exits);
    clearTimeout(hung);
    cluster.off('message', onMessage);
  };

  // The primary's audit chain (admin requests; each worker has its own), opened before any worker is forked.
  const adminAudit =
    config.server.admin_bind === undefined
      ? undefined
      : createConfiguredAuditWriter(config.audit, {
          baseDir: loaded.baseDir,
          secret: secrets.auditSecret,
          ...deps,
        });

  const scrape = (slot: Slot): Promise<MetricFamily[][]> =>
    scrapeSlot(
      slot,
      () => ask<MetricFamily[]>(slot, { op: 'metrics' }),
      () => notRunningFamilies(loaded),
    );

  // Until every worker has started nothing is queued (each first load reads every source); after that, workers
  // that are loading (started again, or catching up) run the reload once they have loaded.
  let firstStartOver = false;
  const reload = (operation: ReloadOperation): Promise<ReloadOutcome> => {
    if (!firstStartOver) return Promise.resolve(firstLoadRunning(loaded));
    const loading = slots.filter(
      (slot) => !slot.listening && !slot.worker.isDead() && slot.restart === undefined,
    );
    missedReloads.note(
      loading.map((slot) => slot.index),
      operation,
    );
    return reloadEverywhere(listening(), (slot) => ask<ReloadOutcome>(slot, operation));
  };

  const backend: RelayAdminBackend = {
    reloadAll: () => reload({ op: 'reload-all' }),
    reloadTable: (datasetId, tableId) => reload({ op: 'reload-table', datasetId, tableId }),
    // A worker that is down (or does not answer) counts as a process that is not running and not ready, as in
    // status(): metrics, posture and /ready agree.
    async metrics() {
      const answers = await Promise.all(slots.map((slot) => scrape(slot)));
      return [...answers.flat(), [configuredProcessesFamily(workers)]];
    },
    async status() {
      const answers = await Promise.all(
        slots.map((slot) =>
          slot.listening
            ? ask<ProcessStatus>(slot, { op: 'status' }).catch(() => notReady(loaded))
            : notReady(loaded),
        ),
      );
      return answers;
    },
  };

  let adminUrl: string | undefined;
  let closeAdmin = async () => {};
  // Both or neither: the admin audit writer exists for an admin listener only.
  if (config.server.admin_bind !== undefined && adminAudit !== undefined) {
    const admin = createRelayAdminApp({
      loaded,
      authenticate: createAuthenticator(config, secrets, deps),
      backend,
      processes: workers,
      requestTimeoutMs: config.server.request_timeout,
      deps,
      writeAudit: (record) => adminAudit.write(record),
    });
    closeAdmin = async () => {
      await admin.close();
      await adminAudit.close();
    };
    try {
      adminUrl = await listenOn(admin, config.server.admin_bind);
      signal?.throwIfAborted();
    } catch (error) {
      await closeAdmin();
      throw error;
    }
  }

  // Forked once the admin listener answers, so that probes and scrapes reach it while the workers load.
  let url: string;
  try {
    await untilAborted(Promise.all(Array.from({ length: workers }, (_, k) => fork(k + 1, false))), signal);
    url = slots[0]?.url ?? '';
  } catch (error) {
    await Promise.all([stopWorkers(), closeAdmin()]);
    throw error;
  }
  firstStartOver = true;

  const rounds = startRefreshRounds({
    config,
    logger,
    workers: listening,
    refresh: (slot, datasetId, tableId) =>
      ask<RefreshAnswer>(slot, { op: 'refresh-table', datasetId, tableId }),
  });
  // Workers that read a source at different moments of it as they started are brought together once all serve.
  const agreeing = new AbortController();
  if (workers > 1) {
    const reloadAll = () => reload({ op: 'reload-all', trigger: 'startup' });
    void agreeAtStart({ status: backend.status, reloadAll, logger, signal: agreeing.signal });
  }

  return {
    url,
    adminUrl,
    // The admin listener and the workers drain together: the public port refuses new connections at once, as with
    // one process, and a worker that exits meanwhile (the whole process group was signalled) is not started again,
    // which would listen on that port anew. A reload still in flight answers 503 (no worker answers it any more).
    async close() {
      agreeing.abort();
      await Promise.all([closeAdmin(), stopWorkers(), rounds.stop()]);
    },
  };
}
