// Chains records onto a sink: builds the envelope, appends it, and advances prev_hash only after a write.
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Random } from '../random.ts';
import { buildEnvelopeLine } from './audit-envelope.ts';
import type { AuditSink } from './sinks/audit-sink.ts';

export type AuditWritePolicy = 'fail_closed' | 'availability_first';

export interface AuditWriter {
  /** Appends one record; with `fail_closed` a failed write throws the `audit.write_failed` problem. */
  write(record: Record<string, unknown>): void;
  close(): Promise<void>;
  /** record_hash of the last envelope written (the next envelope's prev_hash), null before any. */
  readonly lastHash: string | null;
}

export interface ChainWriterOptions {
  readonly secret: Buffer;
  readonly writePolicy: AuditWritePolicy;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  /** Where the chain resumes: the last hash already in the sink, or null for a new chain. */
  readonly prevHash: string | null;
}

export function createChainWriter(sink: AuditSink, options: ChainWriterOptions): AuditWriter {
  const { secret, writePolicy, clock, random, logger } = options;
  let prevHash = options.prevHash;
  // Failures come in bursts (disk full, removed folder); one log line at the start and one at recovery.
  let failedWrites = 0;
  let closing: Promise<void> | undefined;

  return {
    write(record) {
      let recordHash: string;
      try {
        const built = buildEnvelopeLine({ record, prevHash, secret, clock, random });
        recordHash = built.recordHash;
        sink.append(built.line);
      } catch (error) {
        if (failedWrites === 0) {
          // The record itself is never logged: it is exactly what could not be stored safely.
          logger.error(
            { err_code: errorCode(error), err_message: errorMessage(error), write_policy: writePolicy },
            'audit write failed',
          );
        }
        failedWrites++;
        if (writePolicy === 'fail_closed') {
          throw platformProblem('audit.write_failed', 'The audit record could not be written.', {
            cause: error,
          });
        }
        return;
      }
      if (failedWrites > 0) {
        logger.warn({ failed_writes: failedWrites, write_policy: writePolicy }, 'audit writes recovered');
        failedWrites = 0;
      }
      prevHash = recordHash;
    },
    close() {
      closing ??= sink.close();
      return closing;
    },
    get lastHash() {
      return prevHash;
    },
  };
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
