// The flags every config-reading command shares: --config (or an env fallback), --env-file, plus its own.
import type { CliIo } from './cli-io.ts';
import { type FlagSpec, parseFlags, reportFlagError } from './parse-flags.ts';

export interface ConfigFlags {
  readonly config: string;
  readonly envFile: string | undefined;
  /** The command's own flags, by name. */
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
}

/** Parses the flags; on a usage error prints it and returns exit code 2 instead. */
export function readConfigFlags(
  args: string[],
  io: CliIo,
  extra: FlagSpec,
  envFallback: string,
): ConfigFlags | 2 {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseFlags(args, { ...extra, config: { type: 'string' }, 'env-file': { type: 'string' } });
  } catch (error) {
    return reportFlagError(io, error);
  }
  const config = (values.config as string | undefined) ?? io.env[envFallback];
  if (!config) {
    return reportFlagError(io, `--config is required (or set ${envFallback})`);
  }
  return { config, envFile: values['env-file'] as string | undefined, values };
}
