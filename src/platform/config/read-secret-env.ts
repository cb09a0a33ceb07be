// Reads a secret (HMAC key, signing secret) from the environment variable a config names, at least 32 bytes.
import type { ConfigIssue } from './config-error.ts';
import { envValue } from './env-value.ts';
import { unsetVariableMessage } from './name-is-value.ts';

export const MIN_SECRET_BYTES = 32;

export function readSecretEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  path: string,
  issues: ConfigIssue[],
): Buffer | undefined {
  const value = envValue(env, name);
  if (value === undefined || value === '') {
    issues.push({
      path,
      code: 'config.missing_secret',
      message: unsetVariableMessage(env, name),
    });
    return undefined;
  }
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length < MIN_SECRET_BYTES) {
    issues.push({
      path,
      code: 'config.validation_error',
      message: `${name} must hold at least ${MIN_SECRET_BYTES} bytes`,
    });
    return undefined;
  }
  return bytes;
}
