// Chains records onto a sink: builds the envelope, appends it, and advances prev_hash only after a write.
// `enqueue` is the request path's form: records queued during one event-loop turn are written with one append
// (group commit) before any of their responses leaves, so fail-closed still holds for each of them.
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Problem } from '../problem/problem.ts';
import type { Random } from '../random.ts';
import { type AuditRecord, buildEnvelopeLine } from './audit-envelope.ts';
import type { AuditSink } from './sinks/audit-sink.ts';
import { isCommittedWrite } from './sinks/write-fully.ts';
import { type AuditWritePolicy, answerAll, trackWriteFailures } from './write-failures.ts';

export type { AuditWritePolicy } from './write-failures.ts';

export interface AuditWriter {
  /** Appends one record; with `fail_closed` a failed write throws the `audit.write_failed` problem. */
  write(record: AuditRecord): void;
  /**
   * Queues one record for the batch written at the end of this event-loop turn; `done` runs once the batch is
   * written (no argument) or failed (the `audit.write_failed` problem under `fail_closed`, nothing otherwise).
   */
  enqueue(record: AuditRecord, done: (error?: unknown) => void): void;
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
  /** The problem a failed write reports under `fail_closed`; by default the platform's (503). */
  readonly writeFailed?: (cause: unknown) => Problem;
}

export function createChainWriter(sink: AuditSink, options: ChainWriterOptions): AuditWriter {
  const { secret, clock, random, logger } = options;
  // Failures come in bursts (disk full, removed folder); one log line at the start and one at recovery.
  const failures = trackWriteFailures(logger, options.writePolicy, options.writeFailed);
  // The last hash known to be in the sink, and the last one handed to a queued line (the chain runs ahead of
  // the sink while a batch is pending; a failed batch rewinds it).
  let prevHash = options.prevHash;
  let queuedHash = prevHash;
  let queuedLines: string[] = [];
  let waiters: ((error?: unknown) => void)[] = [];
  let flushScheduled = false;
  let closing: Promise<void> | undefined;

  /**
   * Runs one sink action. Returns whether it succeeded and, when it did not, the problem the callers report
   * (the `audit.write_failed` problem under `fail_closed`, undefined under `availability_first`).
   */
  const attempt = (
    action: () => void,
    records: number,
  ): { ok: boolean; failure?: unknown; committed?: boolean } => {
    try {
      action();
    } catch (error) {
      // Cut short on a stream that finishes it later (see CommittedWriteError): the lines will be there, so the
      // chain goes on from them, though their callers fail now.
      return { ok: false, failure: failures.failed(error, records), committed: isCommittedWrite(error) };
    }
    failures.succeeded();
    return { ok: true };
  };

  const flush = (): void => {
    flushScheduled = false;
    if (queuedLines.length === 0) return;
    const lines = queuedLines;
    const done = waiters;
    queuedLines = [];
    waiters = [];
    // An empty last element gives the text its final newline in the same join.
    lines.push('');
    const result = attempt(() => sink.append(lines.join('\n')), lines.length - 1);
    if (result.ok || result.committed) prevHash = queuedHash;
    else queuedHash = prevHash;
    answerAll(logger, done, result.failure);
  };

  const build = (record: AuditRecord) =>
    buildEnvelopeLine({ record, prevHash: queuedHash, secret, clock, random });

  return {
    write(record) {
      // A direct write goes after anything already queued, so the file keeps chain order.
      flush();
      let built: ReturnType<typeof build> | undefined;
      const result = attempt(() => {
        built = build(record);
        sink.append(`${built.line}\n`);
      }, 1);
      if ((result.ok || result.committed) && built !== undefined) prevHash = queuedHash = built.recordHash;
      if (result.failure !== undefined) throw result.failure;
    },
    enqueue(record, done) {
      // Only the append says whether the sink works: building the line succeeding is no recovery.
      let built: ReturnType<typeof build>;
      try {
        built = build(record);
      } catch (error) {
        done(failures.failed(error, 1));
        return;
      }
      queuedHash = built.recordHash;
      queuedLines.push(built.line);
      waiters.push(done);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
    close() {
      flush();
      closing ??= sink.close();
      return closing;
    },
    get lastHash() {
      return prevHash;
    },
  };
}
