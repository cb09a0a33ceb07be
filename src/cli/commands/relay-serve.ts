// `ambit relay serve`: validate the config, load every source, serve until SIGINT/SIGTERM, then drain.
// With `--workers N` (N > 1) this process becomes the primary of N worker processes sharing the port.
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { systemClock } from '../../platform/clock.ts';
import { isBindAddress } from '../../platform/config/bind-address.ts';
import { ConfigError, formatIssue } from '../../platform/config/config-error.ts';
import { createLogger } from '../../platform/log.ts';
import { systemRandom } from '../../platform/random.ts';
import { WORKER_INDEX_ENV, WORKER_RESTARTED_ENV } from '../../relay/cluster/cluster-messages.ts';
import { startRelayPrimary } from '../../relay/cluster/start-relay-primary.ts';
import { startRelayWorker } from '../../relay/cluster/start-relay-worker.ts';
import { loadRelayConfig } from '../../relay/config/load-relay-config.ts';
import { SourceError } from '../../relay/sources/source-error.ts';
import { startRelay } from '../../relay/start-relay.ts';
import type { Command } from '../cli-io.ts';
import { bindFlagClash, listenProblem } from '../listen-error.ts';
import { readConfigFlags } from '../read-config-flags.ts';
import { readLogLevel } from '../read-log-level.ts';
import { resolveEnv } from '../resolve-env.ts';

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
  try {
    const loaded = loadRelayConfig(path, resolveEnv(io.env, flags.envFile));
    const clash = bindFlagClash(bind, loaded.config.server.admin_bind);
    if (clash !== undefined) {
      io.err(clash);
      return 2;
    }
    // With the stdout audit sink, standard output carries audit envelopes only, so it stays a verifiable chain.
    if (loaded.config.audit.sink === 'stdout') notice = io.err;
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
    cluster.worker?.disconnect();
    return reportStartupError(error, io.err);
  }
};

function parseWorkers(value: string | undefined): number | undefined {
  if (value === undefined) return 1;
  if (value === 'auto') return Math.min(availableParallelism(), MAX_WORKERS);
  if (!/^\d+$/.test(value)) return undefined;
  const count = Number(value);
  return count >= 1 && count <= MAX_WORKERS ? count : undefined;
}

/**
 * Prints why a service did not start, in lines without a stack trace. `listenHint` follows a listener that could
 * not bind: how to choose another address.
 */
export function reportStartupError(
  error: unknown,
  err: (line: string) => void,
  listenHint = 'stop the other process, or choose another address (--bind, or server.bind and server.admin_bind in the config)',
): number {
  const listen = listenProblem(error);
  if (listen !== undefined) {
    err(`${listen}; ${listenHint}`);
    return 1;
  }
  if (error instanceof ConfigError) {
    err(`config has ${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}:`);
    for (const issue of error.issues) err(`  ${formatIssue(issue)}`);
    return 1;
  }
  if (error instanceof SourceError) {
    err(`source failed to load: ${error.message}`);
    return 1;
  }
  err(`startup failed: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}

/**
 * Ends a start stopped by SIGINT or SIGTERM, once what it opened is closed (listeners, audit sink, pools, workers):
 * a source load in progress cannot be cancelled (a large file, a slow database query) and would keep the process
 * alive until it is over, so the process ends here, with a drain's exit status.
 */
export function endStoppedStart(notice: ((line: string) => void) | undefined): never {
  notice?.('shutting down: stopped while starting');
  process.exit(0);
}

/**
 * Resolves on the first SIGINT or SIGTERM; a worker also stops when its primary goes away (the IPC channel closes).
 * The handlers stay for the whole drain: a signal sent to the process group (Ctrl-C, systemd's default
 * KillMode=control-group) reaches a worker from the sender and again from its primary, and Node's default action
 * for that second signal would kill the worker mid-drain. So a draining process ignores SIGTERM, and a worker
 * ignores every signal; a second SIGINT (Ctrl-C again) exits a single process or a primary at once, which takes
 * its workers with it (a worker exits when its primary's channel closes).
 */
export function shutdownRequested(
  role: 'single' | 'primary' | 'worker',
  err: (line: string) => void,
  hangup = 'SIGHUP ignored: reload with POST /admin/v1/reload; stop with SIGTERM',
): Promise<void> {
  return new Promise((resolve) => {
    let draining = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (!draining) {
        draining = true;
        resolve();
      } else if (signal === 'SIGINT' && role !== 'worker') {
        err('second interrupt: exiting without draining');
        process.exit(130);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // Node's default for SIGHUP ends the process at once, cutting responses: often sent to mean "reload" (systemd
    // ExecReload), it is ignored and said so. Sources reload by their refresh mode or POST /admin/v1/reload.
    process.on('SIGHUP', () => {
      if (role !== 'worker') err(hangup);
    });
    if (role === 'worker') process.once('disconnect', () => onSignal('SIGTERM'));
  });
}
