// Loads, validates and checks a verifier config file: shape errors first, then every semantic and secret issue.
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../../platform/config/config-error.ts';
import { withLines } from '../../platform/config/issue-lines.ts';
import { loadConfigFile, parseConfigText } from '../../platform/config/load-config-file.ts';
import { validateConfig } from '../../platform/config/validate-config.ts';
import { connectionUrlProblem } from '../../platform/postgres/connection-url.ts';
import { checkVerifierConfig } from './check-verifier-config.ts';
import { LEGACY_KEYS } from './legacy-keys.ts';
import { resolveVerifierSecrets, type VerifierSecrets } from './resolve-verifier-secrets.ts';
import { type VerifierConfig, verifierConfigSchema } from './schema.ts';
import { verifierConfigWarnings } from './verifier-config-warnings.ts';

export interface LoadedVerifierConfig {
  readonly config: VerifierConfig;
  readonly secrets: VerifierSecrets;
  /** Directory relative audit paths resolve against. */
  readonly baseDir: string;
  /** Startup notes that do not stop the service (for example a claim whose source is not configured). */
  readonly warnings: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadVerifierConfig(path: string, env: Env): LoadedVerifierConfig {
  const file = loadConfigFile(path, env);
  return loadVerifierConfigValue(file.raw, env, dirname(resolve(path)));
}

export function loadVerifierConfigText(text: string, env: Env, baseDir: string): LoadedVerifierConfig {
  return loadVerifierConfigValue(parseConfigText(text, env), env, baseDir);
}

/**
 * For a config already parsed from YAML (used when `config check` has read the file to detect its kind). Its issues
 * carry the line of their key, so `verifier serve` says where to look as `config check` does.
 */
export function loadVerifierConfigValue(raw: unknown, env: Env, baseDir: string): LoadedVerifierConfig {
  try {
    return checkedVerifierConfig(raw, env, baseDir);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(withLines(raw, error.issues));
    throw error;
  }
}

function checkedVerifierConfig(raw: unknown, env: Env, baseDir: string): LoadedVerifierConfig {
  const config = validateConfig(verifierConfigSchema, raw, LEGACY_KEYS);
  const issues = checkVerifierConfig(config);
  const { secrets, issues: secretIssues } = resolveVerifierSecrets(config, env);
  issues.push(...secretIssues);
  if (issues.length > 0) throw new ConfigError(issues);
  const warnings = verifierConfigWarnings(config);
  const stateUrl = config.state.postgresql?.url_env;
  // Loaded without TLS on purpose (a private network, a proxy beside the service), but never silently.
  if (stateUrl !== undefined && secrets.stateUrl !== undefined) {
    if (connectionUrlProblem(secrets.stateUrl, stateUrl) !== undefined) {
      warnings.push(
        `state.postgresql: the server named in ${stateUrl} is not on a loopback address and is reached without TLS: stored evaluations, which may hold disclosed values, cross the network in clear (sslmode=require, verify-ca or verify-full)`,
      );
    }
  }
  return { config, secrets, baseDir, warnings };
}
