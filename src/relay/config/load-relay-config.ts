// Loads, validates and checks a relay config file: shape errors first, then every semantic and secret issue.
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../../platform/config/config-error.ts';
import { withLines } from '../../platform/config/issue-lines.ts';
import { loadConfigFile, parseConfigText, sourceDigestOf } from '../../platform/config/load-config-file.ts';
import { validateConfig } from '../../platform/config/validate-config.ts';
import { loadBoundManifest } from '../metadata/load-bound-manifest.ts';
import type { LoadedManifest } from '../metadata/load-manifest.ts';
import { effectiveMaterialization } from './check-postgres-sources.ts';
import { checkRelayConfig } from './check-relay-config.ts';
import { relayConfigWarnings } from './relay-config-warnings.ts';
import { type RelaySecrets, resolveRelaySecrets } from './resolve-relay-secrets.ts';
import { LEGACY_KEYS, type RelayConfig, relayConfigSchema } from './schema.ts';

export interface LoadedRelayConfig {
  readonly config: RelayConfig;
  readonly secrets: RelaySecrets;
  /** Directory relative source and audit paths resolve against. */
  readonly baseDir: string;
  /** The metadata manifest named by `metadata.source`, checked against this config; undefined without one. */
  readonly manifest: LoadedManifest | undefined;
  /** What the config declares and may start with, but its operator should hear about; no values, ids only. */
  readonly warnings: readonly string[];
  /** sha256 (hex) of the config text as written (posture's `last_config_hash`); no `${VAR}` value is in it. */
  readonly sourceDigest: string;
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadRelayConfig(path: string, env: Env): LoadedRelayConfig {
  const file = loadConfigFile(path, env);
  return loadRelayConfigValue(file.raw, env, dirname(resolve(path)), file.sourceDigest);
}

export function loadRelayConfigText(text: string, env: Env, baseDir: string): LoadedRelayConfig {
  return loadRelayConfigValue(parseConfigText(text, env), env, baseDir, sourceDigestOf(text));
}

/** A config already read and parsed (`ambit config check` reads the file once to tell its kind). */
export function loadRelayConfigValue(
  raw: unknown,
  env: Env,
  baseDir: string,
  sourceDigest: string,
): LoadedRelayConfig {
  try {
    return checkedRelayConfig(raw, env, baseDir, sourceDigest);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(withLines(raw, error.issues));
    throw error;
  }
}

function checkedRelayConfig(
  raw: unknown,
  env: Env,
  baseDir: string,
  sourceDigest: string,
): LoadedRelayConfig {
  const config = validateConfig(relayConfigSchema, raw, LEGACY_KEYS);
  const issues = checkRelayConfig(config);
  const metadata = loadBoundManifest(config, baseDir, issues.length === 0);
  const { secrets, issues: secretIssues } = resolveRelaySecrets(config, env);
  issues.push(...secretIssues, ...metadata.issues);
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    config: withMaterializations(config),
    secrets,
    baseDir,
    manifest: metadata.manifest,
    warnings: relayConfigWarnings(config),
    sourceDigest,
  };
}

/**
 * Every table states its materialization (its own, else its dataset's default): the code that serves, reloads and
 * measures tables reads `table.materialization` alone. The config is frozen, so changed parts are copies.
 */
function withMaterializations(config: RelayConfig): RelayConfig {
  if (config.datasets.every((dataset) => dataset.defaults.materialization === undefined)) return config;
  const datasets = config.datasets.map((dataset) =>
    frozen({
      ...dataset,
      tables: frozen(
        dataset.tables.map((table) =>
          table.materialization === undefined
            ? frozen({ ...table, materialization: effectiveMaterialization(dataset, table) })
            : table,
        ),
      ),
    }),
  );
  return frozen({ ...config, datasets: frozen(datasets) });
}

const frozen = <T>(value: T): T => Object.freeze(value) as T;
