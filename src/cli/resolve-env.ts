// The environment a command sees: the process environment, plus an `--env-file` for unset names.
import { readEnvFile } from '../platform/config/read-env-file.ts';

export function resolveEnv(
  env: Readonly<Record<string, string | undefined>>,
  envFile: string | undefined,
): Record<string, string | undefined> {
  if (!envFile) return { ...env };
  // Real environment variables win over the file, so an operator can override one value; an unset
  // (undefined) entry does not hide the file's value.
  const merged: Record<string, string | undefined> = readEnvFile(envFile);
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return merged;
}
