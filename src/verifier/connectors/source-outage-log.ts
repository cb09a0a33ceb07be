// A source that stops answering, in the log (platform/outage-log.ts): per connection, `source read failed` with the
// reason (the audit's code), held back while it repeats, and `source answering again` once it answers.
import type { Logger } from '../../platform/log.ts';
import { createOutageLog } from '../../platform/outage-log.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import { auditCodeOf } from './failure-reason.ts';

export interface SourceOutageLog {
  /** A read of `connection` failed with `error`: told when it says the source failed (not the caller). */
  failed(connection: string, error: unknown): void;
  /** The source of `connection` answered a read. */
  answered(connection: string): void;
}

export function createSourceOutageLog(logger: Logger | undefined, now: () => number): SourceOutageLog {
  const log = createOutageLog(logger, now, {
    failed: 'source read failed',
    recovered: 'source answering again',
    countField: 'failed_reads',
    fieldsOf: (connection) => ({ connection }),
  });
  return {
    failed(connection, error) {
      if (!isSourceFailure(error)) return;
      const reason = auditCodeOf(error) ?? 'source.unavailable';
      log.failed(connection, reason, { connection, reason });
    },
    answered: (connection) => log.answered(connection),
  };
}

/** The source is unavailable or did not answer in time: not a record missing, nor the request's own time out. */
function isSourceFailure(error: unknown): boolean {
  if (!isProblem(error)) return false;
  return error.code === 'source.unavailable' || auditCodeOf(error) === 'source.timeout';
}
