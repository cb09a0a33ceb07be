// `ambit relay serve`: validate the config, load every source, serve until SIGINT/SIGTERM, then drain.
// With `--workers N` (N > 1) this process becomes the primary of N worker processes sharing the port.
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { systemClock } from '../../platform/clock.ts';
import { isBindAddress } from '../../platform/config/bind-address.ts';
import { createLogger } from '../../platform/log.ts';
import { systemRandom } from '../../platform/random.ts';
import { WORKER_INDEX_ENV, WORKER_RESTARTED_ENV } from '../../relay/cluster/cluster-messages.ts';
import { cpuQuota } from '../../relay/cluster/cpu-quota.ts';
import { startRelayPrimary } from '../../relay/cluster/start-relay-primary.ts';
import { startRelayWorker, tellPrimaryStartFailed } from '../../relay/cluster/start-relay-worker.ts';
import { loadRelayConfig } from '../../relay/config/load-relay-config.ts';
import { startRelay } from '../../relay/start-relay.ts';
import type { Command } from '../cli-io.ts';
import { bindFlagClash } from '../listen-error.ts';
import { readConfigFlags } from '../read-config-flags.ts';
import { readLogLevel } from '../read-log-level.ts';
import { reportStartupError } from '../report-startup-error.ts';
import { resolveEnv } from '../resolve-env.ts';
import { endStoppedStart, shutdownRequested } from '../shutdown-requested.ts';

const MAX_WORKERS = 256;

export const relayServe: Command = async (args, io) => {
  const flags = readConfigFlags(
    args,
    io,
    { bind: { type: 'string' }, workers: { type: 'string' } },
    'AMBIT_RELAY_CONFIG',
  );
  if (flags === 2) return 2;
  const path = flags.config;
  const bind = flags.values.bind as string | undefined;
  if (bind !== undefined && !isBindAddress(bind)) {
    io.err('--bind must be host:port with a port from 0 to 65535');
    return 2;
  }
  const workers = parseWorkers(flags.values.workers as string | undefined);
  if (workers === undefined) {
    io.err(`--workers must be a whole number from 1 to ${MAX_WORKERS}, or auto (one per CPU core)`);
    return 2;
  }
  const level = readLogLevel(io);
  if (level === 2) return 2;
  const logger = createLogger({ name: 'ambit-relay', level });
  const deps = { logger, clock: systemClock, random: systemRandom };
  const workerIndex = cluster.isWorker ? Number(io.env[WORKER_INDEX_ENV]) : undefined;
  const role = workerIndex !== undefined ? 'worker' : workers > 1 ? 'primary' : 'single';
  // Listened for before the config is read and the sources load (which may take minutes): a signal meanwhile stops
  // the start cleanly, rather than Node's default ending the process at once.
  const stop = new AbortController();
  const shutdown = shutdownRequested(role, io.err).then(() => stop.abort());
  let notice = io.out;
  let workerStarted = false;
  try {
    const loaded = loadRelayConfig(path, resolveEnv(io.env, flags.envFile));
    // A worker runs with the primary's flags on the config the primary checked: one edited since is refused by the
    // worker's config check (startRelayWorker) and reported by the primary, not printed here.
    const clash =
      workerIndex === undefined ? bindFlagClash(bind, loaded.config.server.admin_bind) : undefined;
    if (clash !== undefined) {
      io.err(clash);
      return 2;
    }
    // With the stdout audit sink, standard output carries audit envelopes only, so it stays a verifiable chain.
    if (loaded.config.audit.sink === 'stdout') notice = io.err;
    // Every worker loads the config too: only the primary (or the single process) says what it warns about.
    if (workerIndex === undefined) for (const warning of loaded.warnings) logger.warn(warning);
    if (workerIndex !== undefined) {
      const restarted = io.env[WORKER_RESTARTED_ENV] === '1';
      let running: Awaited<ReturnType<typeof startRelayWorker>>;
      try {
        running = await startRelayWorker(loaded, workerIndex, deps, bind, restarted, stop.signal);
      } catch (error) {
        if (stop.signal.aborted) throw error;
        // The primary has the error and says it (the first start) or logs it (a restart): not printed twice.
        cluster.worker?.disconnect();
        return 1;
      }
      workerStarted = true;
      await shutdown;
      await running.close();
      // The IPC channel to the primary would keep this process alive.
      cluster.worker?.disconnect();
      return 0;
    }
    const running =
      workers > 1
        ? await startRelayPrimary(loaded, workers, deps, stop.signal)
        : await startRelay(loaded, deps, bind ?? loaded.config.server.bind, { signal: stop.signal });
    notice(`ambit relay listening on ${running.url}${workers > 1 ? ` (${workers} workers)` : ''}`);
    if (running.adminUrl !== undefined) notice(`ambit relay admin listener on ${running.adminUrl}`);
    await shutdown;
    notice('shutting down: draining in-flight requests (a second Ctrl-C exits at once)');
    await running.close();
    return 0;
  } catch (error) {
    if (stop.signal.aborted) endStoppedStart(role === 'worker' ? undefined : notice);
    // A worker whose config no longer loads (edited since the relay started): the primary says why, once. A start
    // stopped by a signal is no failure to report (see startRelayWorker).
    const failedWorkerStart = role === 'worker' && !workerStarted && !stop.signal.aborted;
    if (failedWorkerStart) tellPrimaryStartFailed(error);
    cluster.worker?.disconnect();
    return failedWorkerStart ? 1 : reportStartupError(error, io.err);
  }
};

function parseWorkers(value: string | undefined): number | undefined {
  if (value === undefined) return 1;
  // The cores the process may run on, or fewer where a CPU quota allows fewer.
  if (value === 'auto') return Math.min(availableParallelism(), cpuQuota() ?? MAX_WORKERS, MAX_WORKERS);
  if (!/^\d+$/.test(value)) return undefined;
  const count = Number(value);
  return count >= 1 && count <= MAX_WORKERS ? count : undefined;
}
