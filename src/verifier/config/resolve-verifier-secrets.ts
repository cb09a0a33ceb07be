// Reads the secrets the verifier config names from the environment: credential fingerprints, audit secret, source tokens.
import { type ApiKeyEntry, commitmentOf, FINGERPRINT_PATTERN } from '../../platform/auth/api-key.ts';
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { envValue } from '../../platform/config/env-value.ts';
import { unsetVariableMessage } from '../../platform/config/name-is-value.ts';
import { readSecretEnv } from '../../platform/config/read-secret-env.ts';
import { connectionUrlProblem } from '../../platform/postgres/connection-url.ts';
import type { VerifierConfig } from './schema.ts';

export const VERIFIER_PRODUCT = 'ambit-verifier';

export interface VerifierSecrets {
  /** Credentials accepted in `x-api-key` or `Authorization: Bearer`. */
  readonly apiKeys: readonly ApiKeyEntry[];
  /** Credentials accepted in `Authorization: Bearer` only. */
  readonly bearerTokens: readonly ApiKeyEntry[];
  readonly auditSecret: Buffer;
  /** Bearer token per source connection id. */
  readonly sourceTokens: ReadonlyMap<string, string>;
  /** Connection URL of the PostgreSQL state store (when `state.storage` is `postgresql`). */
  readonly stateUrl: string | undefined;
}

/** A token a relay reads as one bearer credential: visible ASCII, nothing between its characters. */
const BEARER_TOKEN = /^[\x21-\x7e]+$/;

type Env = Readonly<Record<string, string | undefined>>;
type Credential = VerifierConfig['auth']['api_keys'][number];

export function resolveVerifierSecrets(
  config: VerifierConfig,
  env: Env,
): { secrets: VerifierSecrets; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const seen = new Map<string, string>();
  const read = (list: 'api_keys' | 'bearer_tokens') =>
    config.auth[list].flatMap((credential, index) => {
      const entry = readFingerprint(credential, `auth.${list}.${index}.fingerprint`, env, seen, issues);
      return entry ? [entry] : [];
    });
  const apiKeys = read('api_keys');
  const bearerTokens = read('bearer_tokens');
  const auditSecret = readSecretEnv(env, config.audit.hash_secret_env, 'audit.hash_secret_env', issues);
  const sourceTokens = new Map<string, string>();
  for (const [id, connection] of Object.entries(config.evidence.source_connections)) {
    const token = envValue(env, connection.token_env)?.trim();
    if (token === undefined || token === '') {
      issues.push({
        path: `evidence.source_connections.${id}.token_env`,
        code: 'config.missing_secret',
        message: unsetVariableMessage(env, connection.token_env),
      });
    } else if (!BEARER_TOKEN.test(token)) {
      // Sent as `Authorization: Bearer <token>` on every read: a token no header can carry fails each read.
      issues.push({
        path: `evidence.source_connections.${id}.token_env`,
        code: 'config.validation_error',
        message: `${connection.token_env} must hold one bearer token: visible ASCII characters, no spaces or line breaks`,
      });
    } else {
      sourceTokens.set(id, token);
    }
  }
  const stateUrl = readStateUrl(config, env, issues);
  return {
    secrets: { apiKeys, bearerTokens, auditSecret: auditSecret ?? Buffer.alloc(0), sourceTokens, stateUrl },
    issues,
  };
}

function readStateUrl(config: VerifierConfig, env: Env, issues: ConfigIssue[]): string | undefined {
  const block = config.state.postgresql;
  if (config.state.storage !== 'postgresql' || !block) return undefined;
  const value = envValue(env, block.url_env)?.trim();
  if (value === undefined || value === '') {
    issues.push({
      path: 'state.postgresql.url_env',
      code: 'config.missing_secret',
      message: unsetVariableMessage(env, block.url_env),
    });
    return undefined;
  }
  // As the driver will read it (one server, files it names readable); the message never quotes it. The state store
  // may be reached without TLS (docs/verifier.md).
  const problem = connectionUrlProblem(value, block.url_env, { remoteTls: false });
  if (problem !== undefined) {
    issues.push({ path: 'state.postgresql.url_env', code: 'config.validation_error', message: problem });
    return undefined;
  }
  return value;
}

function readFingerprint(
  credential: Credential,
  path: string,
  env: Env,
  seen: Map<string, string>,
  issues: ConfigIssue[],
): ApiKeyEntry | undefined {
  const name = credential.fingerprint.name;
  const value = envValue(env, name)?.trim();
  if (value === undefined || value === '') {
    issues.push({ path, code: 'config.missing_secret', message: unsetVariableMessage(env, name) });
    return undefined;
  }
  if (!FINGERPRINT_PATTERN.test(value)) {
    issues.push({
      path,
      code: 'config.validation_error',
      message: `${name} must hold sha256:<64 lowercase hex> (see \`ambit keys generate\`)`,
    });
    return undefined;
  }
  const commitment = credential.fingerprint.commitment;
  if (commitment !== undefined && commitment !== commitmentOf(VERIFIER_PRODUCT, credential.id, value)) {
    issues.push({
      path: `${path}.commitment`,
      code: 'config.validation_error',
      // The likeliest cause is a commitment printed for the relay (the default of `keys generate`).
      message: `the fingerprint in ${name} does not match the commitment; a verifier takes the one \`ambit keys generate --id ${credential.id} --for verifier\` prints`,
    });
    return undefined;
  }
  const other = seen.get(value);
  if (other !== undefined) {
    issues.push({
      path,
      code: 'config.validation_error',
      message: `credentials \`${other}\` and \`${credential.id}\` share one fingerprint`,
    });
    return undefined;
  }
  seen.set(value, credential.id);
  return { id: credential.id, fingerprint: value, scopes: credential.scopes };
}
