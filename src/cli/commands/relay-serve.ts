// `ambit relay serve`: validate the config, load every source, serve until SIGINT/SIGTERM, then drain.
import { systemClock } from '../../platform/clock.ts';
import { ConfigError, formatIssue } from '../../platform/config/config-error.ts';
import { createLogger } from '../../platform/log.ts';
import { systemRandom } from '../../platform/random.ts';
import { loadRelayConfig } from '../../relay/config/load-relay-config.ts';
import { SourceError } from '../../relay/sources/source-error.ts';
import { startRelay } from '../../relay/start-relay.ts';
import type { Command } from '../cli-io.ts';
import { readConfigFlags } from '../read-config-flags.ts';
import { resolveEnv } from '../resolve-env.ts';

const BIND = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

export const relayServe: Command = async (args, io) => {
  const flags = readConfigFlags(args, io, { bind: { type: 'string' } }, 'AMBIT_RELAY_CONFIG');
  if (flags === 2) return 2;
  const path = flags.config;
  const bind = flags.values.bind as string | undefined;
  if (bind !== undefined && !BIND.test(bind)) {
    io.err('--bind must be host:port');
    return 2;
  }
  const logger = createLogger({ name: 'ambit-relay' });
  try {
    const loaded = loadRelayConfig(path, resolveEnv(io.env, flags.envFile));
    if (loaded.secrets.cursorSecretGenerated) {
      logger.warn(
        'server.cursor_secret_env is not set: cursors are signed with a per-process secret and break on restart',
      );
    }
    const running = await startRelay(loaded, { logger, clock: systemClock, random: systemRandom }, bind);
    io.out(`ambit relay listening on ${running.url}`);
    await waitForSignal();
    io.out('shutting down: draining in-flight requests');
    await running.close();
    return 0;
  } catch (error) {
    return reportStartupError(error, io.err);
  }
};

export function reportStartupError(error: unknown, err: (line: string) => void): number {
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

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
