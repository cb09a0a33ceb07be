// AMBIT_LOG_LEVEL for the commands that log: an unknown level is a usage error, not pino's stack trace.
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../platform/log.ts';
import type { CliIo } from './cli-io.ts';

/** The level to log at (unset or empty: `fallback`); on an unknown one prints why and returns exit code 2. */
export function readLogLevel(io: CliIo, fallback: LogLevel = 'info'): LogLevel | 2 {
  const value = io.env.AMBIT_LOG_LEVEL;
  if (value === undefined || value === '') return fallback;
  if (isLogLevel(value)) return value;
  io.err(`AMBIT_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (unset: ${fallback})`);
  return 2;
}
