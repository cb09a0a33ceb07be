// `ambit config check --config F`: validates a relay config and prints every problem with its path.
import { ConfigError, formatIssue } from '../../platform/config/config-error.ts';
import { loadRelayConfig } from '../../relay/config/load-relay-config.ts';
import type { Command } from '../cli-io.ts';
import { readConfigFlags } from '../read-config-flags.ts';
import { resolveEnv } from '../resolve-env.ts';

export const configCheck: Command = async (args, io) => {
  const flags = readConfigFlags(args, io, {}, 'AMBIT_RELAY_CONFIG');
  if (flags === 2) return 2;
  const path = flags.config;
  try {
    const loaded = loadRelayConfig(path, resolveEnv(io.env, flags.envFile));
    const datasets = loaded.config.datasets;
    const entities = datasets.reduce((sum, dataset) => sum + dataset.entities.length, 0);
    io.out(
      `ok: ${path} (${datasets.length} datasets, ${entities} entities, auth ${loaded.config.auth.mode})`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`${path}: ${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}`);
    for (const issue of error.issues) io.err(`  ${formatIssue(issue)}`);
    return 1;
  }
};
