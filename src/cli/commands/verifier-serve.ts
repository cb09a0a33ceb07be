// `ambit verifier serve`: validate the config, serve until SIGINT/SIGTERM, then drain.
import { systemClock } from '../../platform/clock.ts';
import { isBindAddress } from '../../platform/config/bind-address.ts';
import { createLogger } from '../../platform/log.ts';
import { systemRandom } from '../../platform/random.ts';
import { loadVerifierConfig } from '../../verifier/config/load-verifier-config.ts';
import { startVerifier } from '../../verifier/start-verifier.ts';
import type { Command } from '../cli-io.ts';
import { bindFlagClash } from '../listen-error.ts';
import { parseFlags, reportFlagError } from '../parse-flags.ts';
import { readLogLevel } from '../read-log-level.ts';
import { reportStartupError } from '../report-startup-error.ts';
import { resolveEnv } from '../resolve-env.ts';
import { endStoppedStart, shutdownRequested } from '../shutdown-requested.ts';

export const verifierServe: Command = async (args, io) => {
  let flags: { config?: string; 'env-file'?: string; bind?: string };
  try {
    flags = parseFlags(args, {
      config: { type: 'string' },
      'env-file': { type: 'string' },
      bind: { type: 'string' },
    });
  } catch (error) {
    return reportFlagError(io, error);
  }
  const path = flags.config ?? io.env.AMBIT_VERIFIER_CONFIG;
  if (!path) {
    return reportFlagError(io, '--config is required (or set AMBIT_VERIFIER_CONFIG)');
  }
  if (flags.bind !== undefined && !isBindAddress(flags.bind)) {
    io.err('--bind must be host:port with a port from 0 to 65535');
    return 2;
  }
  const level = readLogLevel(io);
  if (level === 2) return 2;
  const logger = createLogger({ name: 'ambit-verifier', level });
  // As the relay's: handlers kept through the drain (a second SIGTERM is ignored, a second Ctrl-C exits at once),
  // and installed before the start, which a signal stops cleanly.
  const stop = new AbortController();
  const shutdown = shutdownRequested('single', io.err, {
    ignore:
      'SIGHUP ignored: the verifier has nothing to reload (configuration changes need a restart); stop with SIGTERM',
  }).then(() => stop.abort());
  let notice = io.out;
  try {
    const loaded = loadVerifierConfig(path, resolveEnv(io.env, flags['env-file']));
    const clash = bindFlagClash(flags.bind, loaded.config.server.admin_bind);
    if (clash !== undefined) {
      io.err(clash);
      return 2;
    }
    // With the stdout audit sink, standard output carries audit envelopes only, so it stays a verifiable chain.
    if (loaded.config.audit.sink === 'stdout') notice = io.err;
    for (const warning of loaded.warnings) logger.warn(warning);
    if (loaded.config.state.storage === 'memory') {
      logger.warn('state.storage is memory: stored evaluations live in this process only');
    }
    const running = await startVerifier(
      loaded,
      { logger, clock: systemClock, random: systemRandom },
      flags.bind,
      stop.signal,
    );
    notice(`ambit verifier listening on ${running.url}`);
    if (running.adminUrl) notice(`ambit verifier admin listener on ${running.adminUrl}`);
    await shutdown;
    notice('shutting down: draining in-flight requests (a second Ctrl-C exits at once)');
    await running.close();
    return 0;
  } catch (error) {
    if (stop.signal.aborted) endStoppedStart(notice);
    return reportStartupError(error, io.err);
  }
};
