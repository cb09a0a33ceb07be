// Loads, validates and checks a relay config file: shape errors first, then every semantic and secret issue.
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../../platform/config/config-error.ts';
import { loadConfigFile, parseConfigText } from '../../platform/config/load-config-file.ts';
import { validateConfig } from '../../platform/config/validate-config.ts';
import { loadBoundManifest } from '../metadata/load-bound-manifest.ts';
import type { LoadedManifest } from '../metadata/load-manifest.ts';
import { checkRelayConfig } from './check-relay-config.ts';
import { type RelaySecrets, resolveRelaySecrets } from './resolve-relay-secrets.ts';
import { LEGACY_KEYS, type RelayConfig, relayConfigSchema } from './schema.ts';

export interface LoadedRelayConfig {
  readonly config: RelayConfig;
  readonly secrets: RelaySecrets;
  /** Directory relative source and audit paths resolve against. */
  readonly baseDir: string;
  /** The metadata manifest named by `metadata.source`, checked against this config; undefined without one. */
  readonly manifest: LoadedManifest | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadRelayConfig(path: string, env: Env): LoadedRelayConfig {
  const file = loadConfigFile(path, env);
  return checkLoaded(file.raw, env, dirname(resolve(path)));
}

export function loadRelayConfigText(text: string, env: Env, baseDir: string): LoadedRelayConfig {
  return checkLoaded(parseConfigText(text, env), env, baseDir);
}

function checkLoaded(raw: unknown, env: Env, baseDir: string): LoadedRelayConfig {
  const config = validateConfig(relayConfigSchema, raw, LEGACY_KEYS);
  const issues = checkRelayConfig(config);
  const metadata = loadBoundManifest(config, baseDir, issues.length === 0);
  const { secrets, issues: secretIssues } = resolveRelaySecrets(config, env);
  issues.push(...secretIssues, ...metadata.issues);
  if (issues.length > 0) throw new ConfigError(issues);
  return { config, secrets, baseDir, manifest: metadata.manifest };
}
