// `ambit config check --config F [--kind relay|verifier] [--connect]`: validates a relay or verifier config (detected
// from its top-level keys unless `--kind` says) and prints every problem with its path. With `--connect`, a relay's
// PostgreSQL sources are also checked against their databases, as a start would check them.
import { dirname, resolve } from 'node:path';
import { ConfigError, formatIssue } from '../../platform/config/config-error.ts';
import { didYouMean } from '../../platform/config/did-you-mean.ts';
import { withLines } from '../../platform/config/issue-lines.ts';
import { loadConfigFile } from '../../platform/config/load-config-file.ts';
import { type LoadedRelayConfig, loadRelayConfigValue } from '../../relay/config/load-relay-config.ts';
import { loadVerifierConfigValue } from '../../verifier/config/load-verifier-config.ts';
import type { Command } from '../cli-io.ts';
import { counted } from '../counted.ts';
import { parseFlags, reportFlagError } from '../parse-flags.ts';
import { resolveEnv } from '../resolve-env.ts';

type Kind = 'relay' | 'verifier';

export const configCheck: Command = async (args, io) => {
  let flags: { config?: string; 'env-file'?: string; kind?: string; connect?: boolean };
  try {
    flags = parseFlags(args, {
      config: { type: 'string' },
      'env-file': { type: 'string' },
      kind: { type: 'string' },
      connect: { type: 'boolean' },
    });
  } catch (error) {
    return reportFlagError(io, error);
  }
  if (flags.kind !== undefined && flags.kind !== 'relay' && flags.kind !== 'verifier') {
    io.err('--kind must be relay or verifier');
    return 2;
  }
  // With --kind, only that kind's variable: both are often set side by side, and the other names the wrong file.
  const fallbacks =
    flags.kind === 'verifier'
      ? ['AMBIT_VERIFIER_CONFIG']
      : flags.kind === 'relay'
        ? ['AMBIT_RELAY_CONFIG']
        : ['AMBIT_RELAY_CONFIG', 'AMBIT_VERIFIER_CONFIG'];
  const path = flags.config ?? fallbacks.map((name) => io.env[name]).find((value) => !!value);
  if (!path) {
    return reportFlagError(io, `--config is required (or set ${fallbacks.join(' or ')})`);
  }
  let raw: unknown;
  try {
    const env = resolveEnv(io.env, flags['env-file']);
    // Read and parsed once, for both kinds: parsing is most of the check's time and memory on a large file.
    const file = loadConfigFile(path, env);
    raw = file.raw;
    const kind = (flags.kind as Kind | undefined) ?? detectKind(file.raw);
    if (kind === 'verifier' && flags.connect) {
      return reportFlagError(io, '--connect checks the PostgreSQL sources of a relay config');
    }
    if (kind === 'verifier') {
      io.out(checkVerifier(file.raw, path, env));
      return 0;
    }
    const loaded = loadRelayConfigValue(file.raw, env, dirname(resolve(path)), file.sourceDigest);
    io.out(relaySummary(path, loaded));
    return flags.connect ? await connectSources(loaded, io) : 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`${path}: ${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}`);
    for (const issue of withLines(raw, error.issues)) io.err(`  ${formatIssue(issue)}`);
    return 1;
  }
};

/** Root keys only one kind has. */
const RELAY_ONLY = ['datasets', 'catalog', 'vocabularies', 'metadata'];
const VERIFIER_ONLY = ['evidence', 'state', 'cel'];

/**
 * A verifier config has `evidence` and no `datasets`; without either, a key only a verifier has (or a misspelt
 * `evidence`) and none only a relay has. Anything else is checked as a relay config: a misspelt `evidence` checked
 * as one would be answered with the relay's missing `catalog` and `datasets`, not with the typo.
 */
function detectKind(raw: unknown): Kind {
  const keys = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? Object.keys(raw) : [];
  if (keys.includes('datasets')) return 'relay';
  if (keys.includes('evidence')) return 'verifier';
  if (keys.some((key) => RELAY_ONLY.includes(key))) return 'relay';
  const verifierKey = (key: string) =>
    VERIFIER_ONLY.includes(key) || didYouMean(key, ['evidence']) !== undefined;
  return keys.some(verifierKey) ? 'verifier' : 'relay';
}

function relaySummary(path: string, loaded: LoadedRelayConfig): string {
  const datasets = loaded.config.datasets;
  const entities = datasets.reduce((sum, dataset) => sum + dataset.entities.length, 0);
  return [
    `ok: ${path} (${counted(datasets.length, 'dataset')}, ${counted(entities, 'entity', 'entities')}, auth ${loaded.config.auth.mode})`,
    ...loaded.warnings.map((warning) => `  warning: ${warning}`),
  ].join('\n');
}

function checkVerifier(raw: unknown, path: string, env: Record<string, string | undefined>): string {
  const loaded = loadVerifierConfigValue(raw, env, dirname(resolve(path)));
  const { evidence, auth } = loaded.config;
  const lines = [
    `ok: ${path} (verifier, ${counted(evidence.claims.length, 'claim')}, ${counted(Object.keys(evidence.source_connections).length, 'source connection')}, auth ${auth.mode})`,
    ...loaded.warnings.map((warning) => `  warning: ${warning}`),
  ];
  return lines.join('\n');
}

/** `--connect`: one line per PostgreSQL table, ok or what a start would fail with; 1 when any would fail. */
async function connectSources(loaded: LoadedRelayConfig, io: Parameters<Command>[1]): Promise<number> {
  const { checkPostgresConnections } = await import(
    '../../relay/sources/postgres/check-postgres-connections.ts'
  );
  const checks = await checkPostgresConnections(loaded);
  if (checks.length === 0) {
    io.out('  no PostgreSQL sources to connect to');
    return 0;
  }
  for (const check of checks) {
    const name = `${check.datasetId}/${check.tableId} (${check.materialization})`;
    if (check.problem === undefined) io.out(`  ok: ${name}`);
    else io.err(`  ${name}: ${check.problem.code}: ${check.problem.detail}`);
  }
  const failed = checks.filter((check) => check.problem !== undefined && !check.tokenOnly).length;
  const stale = checks.filter((check) => check.tokenOnly).length;
  if (failed > 0) io.err(`${failed} of ${checks.length} PostgreSQL tables would fail to serve`);
  if (stale > 0)
    io.err(`${stale} of ${checks.length} PostgreSQL tables would serve data no refresh would ever update`);
  return failed + stale > 0 ? 1 : 0;
}
