// Why a service did not start, as the serve commands and the demo print it: lines without a stack trace.
import { ConfigError, formatIssue } from '../platform/config/config-error.ts';
import { SourceError } from '../relay/sources/source-error.ts';
import { listenProblem } from './listen-error.ts';

/**
 * Prints why a service did not start and returns the exit status. `listenHint` follows a listener that could not
 * bind: how to choose another address.
 */
export function reportStartupError(
  error: unknown,
  err: (line: string) => void,
  listenHint = 'stop the other process, or choose another address (--bind, or server.bind and server.admin_bind in the config)',
): number {
  const listen = listenProblem(error);
  if (listen !== undefined) {
    err(`${listen}; ${listenHint}`);
    return 1;
  }
  if (error instanceof ConfigError) {
    err(`config has ${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}:`);
    for (const issue of error.issues) err(`  ${formatIssue(issue)}`);
    return 1;
  }
  if (error instanceof SourceError) {
    err(`source failed to load: ${error.message}`);
    return 1;
  }
  err(`startup failed: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}
