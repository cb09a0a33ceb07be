// Reads the secrets the config names from the environment: key fingerprints, audit and cursor secrets.
import { hkdfSync } from 'node:crypto';
import { type ApiKeyEntry, commitmentOf, FINGERPRINT_PATTERN } from '../../platform/auth/api-key.ts';
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { envValue } from '../../platform/config/env-value.ts';
import { unsetVariableMessage } from '../../platform/config/name-is-value.ts';
import { readSecretEnv } from '../../platform/config/read-secret-env.ts';
import { resolveSourceUrls } from './resolve-source-urls.ts';
import type { RelayConfig } from './schema.ts';

export const RELAY_PRODUCT = 'ambit-relay';

/**
 * The product the reference relay commits its keys to: its commitments bind the same id to the same fingerprint,
 * so a key carried over with its config keeps its commitment rather than being rotated.
 */
const REFERENCE_RELAY_PRODUCT = 'registry-relay';

export interface RelaySecrets {
  readonly apiKeys: readonly ApiKeyEntry[];
  readonly auditSecret: Buffer;
  readonly cursorSecret: Buffer;
  /** True when no cursor secret was configured and it was derived from the audit secret. */
  readonly cursorSecretDerived: boolean;
  /** PostgreSQL connection URLs by `datasetId/tableId` (from each source's `connection_env`). */
  readonly sourceUrls: ReadonlyMap<string, string>;
}

type Env = Readonly<Record<string, string | undefined>>;

export function resolveRelaySecrets(
  config: RelayConfig,
  env: Env,
): { secrets: RelaySecrets; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const apiKeys: ApiKeyEntry[] = [];
  const seen = new Map<string, string>();
  (config.auth.api_keys ?? []).forEach((key, k) => {
    const path = `auth.api_keys.${k}.fingerprint`;
    const value = envValue(env, key.fingerprint.name)?.trim();
    if (value === undefined || value === '') {
      issues.push({
        path,
        code: 'config.missing_secret',
        message: unsetVariableMessage(env, key.fingerprint.name),
      });
      return;
    }
    if (!FINGERPRINT_PATTERN.test(value)) {
      issues.push({
        path,
        code: 'config.validation_error',
        message: `${key.fingerprint.name} must hold sha256:<64 lowercase hex> (see \`ambit keys generate\`)`,
      });
      return;
    }
    const commitment = key.fingerprint.commitment;
    if (
      commitment !== undefined &&
      commitment !== commitmentOf(RELAY_PRODUCT, key.id, value) &&
      commitment !== commitmentOf(REFERENCE_RELAY_PRODUCT, key.id, value)
    ) {
      issues.push({
        path: `${path}.commitment`,
        code: 'config.validation_error',
        // A commitment printed with `--for verifier` is bound to the verifier: name the command the relay takes.
        message: `the fingerprint in ${key.fingerprint.name} does not match the commitment; a relay takes the one \`ambit keys generate --id ${key.id}\` prints`,
      });
      return;
    }
    const other = seen.get(value);
    if (other !== undefined) {
      issues.push({
        path,
        code: 'config.validation_error',
        message: `api keys \`${other}\` and \`${key.id}\` share one fingerprint`,
      });
      return;
    }
    seen.set(value, key.id);
    apiKeys.push({ id: key.id, fingerprint: value, scopes: key.scopes });
  });

  const auditSecret = readSecretEnv(env, config.audit.hash_secret_env, 'audit.hash_secret_env', issues);
  const cursorEnv = config.server.cursor_secret_env;
  const cursorSecret = cursorEnv
    ? readSecretEnv(env, cursorEnv, 'server.cursor_secret_env', issues)
    : undefined;
  // One key for both would let a cursor's signature stand for an audit hash of the same bytes, and the reverse.
  if (cursorSecret !== undefined && auditSecret !== undefined && cursorSecret.equals(auditSecret)) {
    issues.push({
      path: 'server.cursor_secret_env',
      code: 'config.validation_error',
      message: `${cursorEnv} holds the audit secret (${config.audit.hash_secret_env}): give cursors a secret of their own, or leave cursor_secret_env out to derive one from the audit secret`,
    });
  }
  const sources = resolveSourceUrls(config, env);
  issues.push(...sources.issues);
  return {
    secrets: {
      apiKeys,
      auditSecret: auditSecret ?? Buffer.alloc(0),
      cursorSecret: cursorSecret ?? deriveCursorSecret(auditSecret ?? Buffer.alloc(0)),
      cursorSecretDerived: cursorSecret === undefined,
      sourceUrls: sources.urls,
    },
    issues,
  };
}

/**
 * Without its own secret, the cursor key is derived from the audit secret (HKDF, a label of its own): every
 * process started from one config signs and accepts the same cursors, and a cursor never reveals the audit key.
 */
function deriveCursorSecret(auditSecret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', auditSecret, Buffer.alloc(0), 'ambit-relay cursor signing v1', 32));
}
